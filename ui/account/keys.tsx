/** Device keys: Ed25519 keys that sign requests for a verified callsign (an ingest box, a script). */
import { useState } from "preact/hooks";
import { When } from "../time.tsx";
import { api } from "../api.ts";
import { loadAccount } from "./session.ts";
import { Section, type SectionProps } from "./ui.tsx";
import { t } from "../i18n/i18n.ts";
import { Rich } from "../i18n/rich.tsx";
import { useAction } from "../hooks.ts";

export function DeviceKeysSection({ account, onChange }: SectionProps) {
  const { run, busy, errorView } = useAction();
  const verified = [...new Set(account.callsigns.filter((c) => c.verified).map((c) => c.call.split("-")[0]!))];
  const [call, setCall] = useState(verified[0] ?? "");
  const [key, setKey] = useState("");
  const [label, setLabel] = useState("");
  const reload = async () => onChange((await loadAccount())!);
  const add = (e: Event) => {
    e.preventDefault();
    run(async () => {
      await api("/keys/register", { method: "POST", json: { call: call || verified[0], key: key.trim(), label: label.trim() || undefined } });
      setKey("");
      setLabel("");
      await reload();
    });
  };
  const revoke = (k: string) =>
    confirm(t("keys.revoke")) &&
    run(async () => {
      await api("/keys/revoke", { method: "POST", json: { key: k } });
      await reload();
    });
  return (
    <Section title={t("account.deviceKeys")} id="device-keys">
      <p class="muted">
        <Rich k="keys.intro" parts={[(s) => <code>{s}</code>]} />
      </p>
      {account.deviceKeys.length > 0 && (
        <table class="table" aria-label={t("keys.yourKeys")}>
          <thead>
            <tr>
              <th>{t("keys.key")}</th>
              <th>{t("keys.callsign")}</th>
              <th>{t("keys.label")}</th>
              <th>{t("keys.added")}</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {account.deviceKeys.map((k) => (
              <tr>
                <td>
                  <code class="key">{k.key}</code>
                </td>
                <td>{k.call}</td>
                <td>{k.label ?? ""}</td>
                <td>
                  <When at={k.createdAt} />
                </td>
                <td>
                  <button type="button" disabled={busy} onClick={() => revoke(k.key)}>
                    {t("keys.revokeButton")}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {verified.length === 0 ? (
        <p class="muted">{t("keys.verifyFirst")}</p>
      ) : (
        <form class="inline" onSubmit={add}>
          <label for="key-call">{t("keys.registerFor")}</label>
          <select id="key-call" value={call} onChange={(e) => setCall((e.target as HTMLSelectElement).value)}>
            {verified.map((c) => (
              <option value={c}>{c}</option>
            ))}
          </select>
          <input
            aria-label={t("keys.publicKey")}
            placeholder={t("keys.publicKeyHint")}
            size={46}
            value={key}
            onInput={(e) => setKey((e.target as HTMLInputElement).value)}
          />
          <input
            aria-label={t("keys.keyLabel")}
            placeholder={t("keys.keyLabelHint")}
            value={label}
            onInput={(e) => setLabel((e.target as HTMLInputElement).value)}
          />
          <button type="submit" disabled={busy || !key.trim()}>
            {t("keys.register")}
          </button>
        </form>
      )}
      {errorView}
    </Section>
  );
}
