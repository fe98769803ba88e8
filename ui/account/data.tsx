/** Your data: download everything (export), or erase the account after a confirmation step. */
import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { Section, useAction, type SectionProps } from "./ui.tsx";
import { t } from "../i18n/i18n.ts";

/** The account's name in /api/account/:call/...: a held callsign, or `me` for accounts without one. */
export const accountPath = (a: SectionProps["account"]) => `/api/account/${encodeURIComponent(a.call ?? a.callsigns[0]?.call ?? "me")}`;

export function YourDataSection({ account, onSignedOut }: SectionProps) {
  const { run, busy, errorView } = useAction();
  const [confirming, setConfirming] = useState(false);
  const [typed, setTyped] = useState("");
  const word = account.call ?? "ERASE";
  const download = () =>
    run(async () => {
      const data = await api<unknown>(`${accountPath(account)}/export`, { method: "POST", json: {} });
      const url = URL.createObjectURL(new Blob([JSON.stringify(data, null, 2)], { type: "application/json" }));
      const a = document.createElement("a");
      a.href = url;
      a.download = `account-${account.call ?? account.id}.json`;
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    });
  const erase = (e: Event) => {
    e.preventDefault();
    run(async () => {
      await api(`${accountPath(account)}/delete`, { method: "POST", json: { confirm: true } });
      onSignedOut("Your account was erased. Other instances have been told to forget it.");
    });
  };
  return (
    <Section title={t("account.yourData")} id="your-data">
      <p>Everything this instance stores about your account, as one JSON file.</p>
      <button type="button" disabled={busy} onClick={download}>
        Download my data
      </button>
      <div class="card danger-zone">
        <h3>Erase this account</h3>
        <p>
          Your callsigns, passkeys, keys, e-mail, preferences and sessions are deleted. Your finds stay in cache logbooks without your name, marked withdrawn;
          caches you own are archived. Other instances are told to forget the account. This cannot be undone.
        </p>
        {!confirming ? (
          <button type="button" class="danger" disabled={busy} onClick={() => setConfirming(true)}>
            Erase my account…
          </button>
        ) : (
          <form onSubmit={erase}>
            <label for="erase-confirm">
              Type <strong>{word}</strong> to confirm
            </label>
            <input id="erase-confirm" autocomplete="off" value={typed} onInput={(e) => setTyped((e.target as HTMLInputElement).value)} />{" "}
            <button class="danger" type="submit" disabled={busy || typed.trim().toUpperCase() !== word.toUpperCase()}>
              Erase everything
            </button>{" "}
            <button type="button" onClick={() => (setConfirming(false), setTyped(""))}>
              Cancel
            </button>
          </form>
        )}
      </div>
      {errorView}
    </Section>
  );
}
