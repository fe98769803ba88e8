/** The account's callsigns: add, make active, remove, and their verification status. */
import { useState } from "preact/hooks";
import { When } from "../time.tsx";
import { api } from "../api.ts";
import { loadAccount, type CallsignRow } from "./session.ts";
import { Section, type SectionProps } from "./ui.tsx";
import { VerifyPanel } from "./verify.tsx";
import { t } from "../i18n/i18n.ts";
import { useAction } from "../hooks.ts";

export function CallsignsSection({ account, onChange }: SectionProps) {
  const { run, busy, errorView } = useAction();
  const [call, setCall] = useState("");
  const [verifying, setVerifying] = useState<string | null>(null);
  const reload = async () => onChange((await loadAccount())!);
  const post = (path: string, json: unknown) =>
    run(async () => {
      await api(path, { method: "POST", json });
      await reload();
    });
  const add = (e: Event) => {
    e.preventDefault();
    post("/auth/callsigns", { add: call }).then(() => setCall(""));
  };
  return (
    <Section title={t("account.callsigns")} id="callsigns">
      {account.callsigns.length === 0 ? (
        <p class="muted">{t("account.noCall")}</p>
      ) : (
        <table class="table" aria-label={t("account.yourCallsigns")}>
          <thead>
            <tr>
              <th>{t("account.callsign")}</th>
              <th>{t("account.status")}</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {account.callsigns.map((c: CallsignRow) => (
              <tr data-call={c.call}>
                <td>
                  <strong>{c.call}</strong> {c.active && <span class="tag">{t("account.active")}</span>}
                </td>
                <td class="verification">
                  {c.verified ? (
                    <span class="ok">
                      {t("account.verified")} <When at={c.verifiedAt} never="" />
                    </span>
                  ) : (
                    <span class="warn">{t("account.notVerified")}</span>
                  )}
                </td>
                <td class="actions">
                  {!c.verified && (
                    <button type="button" disabled={busy} onClick={() => setVerifying(c.call)}>
                      {t("account.verify")}
                    </button>
                  )}
                  {!c.active && (
                    <button type="button" disabled={busy} onClick={() => post("/auth/callsign", { call: c.call })}>
                      {t("account.makeActive")}
                    </button>
                  )}
                  <button
                    type="button"
                    disabled={busy}
                    onClick={() => confirm(t("account.removeCall", { call: c.call })) && post("/auth/callsigns", { remove: c.call })}
                  >
                    {t("account.remove")}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {verifying && <VerifyPanel call={verifying} onDone={reload} onClose={() => setVerifying(null)} />}
      <form class="inline" onSubmit={add}>
        <label for="add-call">{t("account.addCall")}</label>
        <input id="add-call" value={call} placeholder="N0CALL" autocapitalize="characters" onInput={(e) => setCall((e.target as HTMLInputElement).value)} />
        <button type="submit" disabled={busy || !call.trim()}>
          {t("account.add")}
        </button>
      </form>
      {errorView}
    </Section>
  );
}
