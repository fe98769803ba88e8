/** Device keys: Ed25519 keys that sign requests for a verified callsign (an ingest box, a script). */
import { useState } from "preact/hooks";
import { When } from "../time.tsx";
import { api } from "../api.ts";
import { loadAccount } from "./session.ts";
import { Section, useAction, type SectionProps } from "./ui.tsx";
import { t } from "../i18n/i18n.ts";

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
    confirm("Revoke this device key? Whatever signs with it (a radio, an app) stops working here.") &&
    run(async () => {
      await api("/keys/revoke", { method: "POST", json: { key: k } });
      await reload();
    });
  return (
    <Section title={t("account.deviceKeys")} id="device-keys">
      <p class="muted">
        An Ed25519 key signs requests for your verified callsign without a browser: an ingest box, a script, moving your account. Make one with{" "}
        <code>svc-gateway keygen</code> and paste the public key here; keep the private key on the device.
      </p>
      {account.deviceKeys.length > 0 && (
        <table class="table" aria-label="your device keys">
          <thead>
            <tr>
              <th>Key</th>
              <th>Callsign</th>
              <th>Label</th>
              <th>Added</th>
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
                    Revoke
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {verified.length === 0 ? (
        <p class="muted">Verify a callsign first: keys speak for a verified callsign.</p>
      ) : (
        <form class="inline" onSubmit={add}>
          <label for="key-call">Register a public key for</label>
          <select id="key-call" value={call} onChange={(e) => setCall((e.target as HTMLSelectElement).value)}>
            {verified.map((c) => (
              <option value={c}>{c}</option>
            ))}
          </select>
          <input
            aria-label="Public key"
            placeholder="base64url public key (43 characters)"
            size={46}
            value={key}
            onInput={(e) => setKey((e.target as HTMLInputElement).value)}
          />
          <input aria-label="Key label" placeholder="label, e.g. ingest box" value={label} onInput={(e) => setLabel((e.target as HTMLInputElement).value)} />
          <button type="submit" disabled={busy || !key.trim()}>
            Register key
          </button>
        </form>
      )}
      {errorView}
    </Section>
  );
}
