/** Your data: download everything (export), or erase the account after a confirmation step. */
import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { Section, type SectionProps } from "./ui.tsx";
import { t } from "../i18n/i18n.ts";
import { Rich } from "../i18n/rich.tsx";
import { useAction } from "../hooks.ts";

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
      onSignedOut(t("data.erased"));
    });
  };
  return (
    <Section title={t("account.yourData")} id="your-data">
      <p>{t("data.intro")}</p>
      <button type="button" disabled={busy} onClick={download}>
        {t("data.download")}
      </button>
      <div class="card danger-zone">
        <h3>{t("data.eraseTitle")}</h3>
        <p>{t("data.eraseWhat")}</p>
        {!confirming ? (
          <button type="button" class="danger" disabled={busy} onClick={() => setConfirming(true)}>
            {t("data.erase")}
          </button>
        ) : (
          <form onSubmit={erase}>
            <label for="erase-confirm">
              <Rich k="data.typeToConfirm" vars={{ word }} parts={[(s) => <strong>{s}</strong>]} />
            </label>
            <input id="erase-confirm" autocomplete="off" value={typed} onInput={(e) => setTyped((e.target as HTMLInputElement).value)} />{" "}
            <button class="danger" type="submit" disabled={busy || typed.trim().toUpperCase() !== word.toUpperCase()}>
              {t("data.eraseAll")}
            </button>{" "}
            <button type="button" onClick={() => (setConfirming(false), setTyped(""))}>
              {t("data.cancel")}
            </button>
          </form>
        )}
      </div>
      {errorView}
    </Section>
  );
}
