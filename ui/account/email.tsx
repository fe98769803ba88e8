/** The account's e-mail address for sign-in links (optional with a passkey). */
import { useState } from "preact/hooks";
import { api } from "../api.ts";
import type { Account } from "./session.ts";
import { Section, type SectionProps } from "./ui.tsx";
import { t } from "../i18n/i18n.ts";
import { Rich } from "../i18n/rich.tsx";
import { useAction } from "../hooks.ts";

export function EmailSection({ account, onChange }: SectionProps) {
  const { run, busy, errorView } = useAction();
  const [email, setEmail] = useState("");
  const [sent, setSent] = useState(false);
  const [code, setCode] = useState("");
  if (account.email) {
    return (
      <Section title={t("account.email")} id="email">
        <p>
          <Rich k="account.linksGoTo" vars={{ email: account.email }} parts={[(s) => <strong>{s}</strong>]} />
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
    <Section title={t("account.email")} id="email">
      <p class="muted">{t("account.emailOptional")}</p>
      {!sent ? (
        <form class="inline" onSubmit={start}>
          <label for="add-email">{t("account.emailAddress")}</label>
          <input id="add-email" type="email" required value={email} onInput={(e) => setEmail((e.target as HTMLInputElement).value)} />
          <button type="submit" disabled={busy}>
            {t("account.sendCode")}
          </button>
        </form>
      ) : (
        <form class="inline" onSubmit={finish}>
          <label for="email-code">{t("account.codeSentTo", { email })}</label>
          <input id="email-code" inputMode="numeric" maxLength={6} value={code} onInput={(e) => setCode((e.target as HTMLInputElement).value)} />
          <button type="submit" disabled={busy}>
            {t("account.confirm")}
          </button>
        </form>
      )}
      {errorView}
    </Section>
  );
}
