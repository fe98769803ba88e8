/** The account's e-mail address for sign-in links (optional with a passkey). */
import { useState } from "preact/hooks";
import { api } from "../api.ts";
import type { Account } from "./session.ts";
import { Section, useAction, type SectionProps } from "./ui.tsx";

export function EmailSection({ account, onChange }: SectionProps) {
  const { run, busy, errorView } = useAction();
  const [email, setEmail] = useState("");
  const [sent, setSent] = useState(false);
  const [code, setCode] = useState("");
  if (account.email) {
    return (
      <Section title="E-mail" id="email">
        <p>
          Sign-in links go to <strong>{account.email}</strong>.
        </p>
      </Section>
    );
  }
  const start = (e: Event) => {
    e.preventDefault();
    run(async () => {
      await api("/auth/email/start", { method: "POST", json: { email } });
      setSent(true);
    });
  };
  const finish = (e: Event) => {
    e.preventDefault();
    run(async () => onChange((await api<{ account: Account }>("/auth/email/verify", { method: "POST", json: { email, code } })).account));
  };
  return (
    <Section title="E-mail" id="email">
      <p class="muted">Optional: an address for sign-in links, in case you lose your passkeys.</p>
      {!sent ? (
        <form class="inline" onSubmit={start}>
          <label for="add-email">E-mail address</label>
          <input id="add-email" type="email" required value={email} onInput={(e) => setEmail((e.target as HTMLInputElement).value)} />
          <button type="submit" disabled={busy}>
            Send a code
          </button>
        </form>
      ) : (
        <form class="inline" onSubmit={finish}>
          <label for="email-code">Code sent to {email}</label>
          <input id="email-code" inputMode="numeric" maxLength={6} value={code} onInput={(e) => setCode((e.target as HTMLInputElement).value)} />
          <button type="submit" disabled={busy}>
            Confirm
          </button>
        </form>
      )}
      {errorView}
    </Section>
  );
}
