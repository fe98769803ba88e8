/** The account's callsigns: add, make active, remove, and their verification status. */
import { useState } from "preact/hooks";
import { When } from "../time.tsx";
import { api } from "../api.ts";
import { loadAccount, type CallsignRow } from "./session.ts";
import { Section, useAction, type SectionProps } from "./ui.tsx";
import { VerifyPanel } from "./verify.tsx";

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
    <Section title="Callsigns" id="callsigns">
      {account.callsigns.length === 0 ? (
        <p class="muted">No callsign yet. Add yours (with an SSID if you like, e.g. N0CALL-9), then verify it over APRS.</p>
      ) : (
        <table class="table" aria-label="your callsigns">
          <thead>
            <tr>
              <th>Callsign</th>
              <th>Status</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {account.callsigns.map((c: CallsignRow) => (
              <tr data-call={c.call}>
                <td>
                  <strong>{c.call}</strong> {c.active && <span class="tag">active</span>}
                </td>
                <td class="verification">
                  {c.verified ? (
                    <span class="ok">
                      Verified <When at={c.verifiedAt} never="" />
                    </span>
                  ) : (
                    <span class="warn">Not verified</span>
                  )}
                </td>
                <td class="actions">
                  {!c.verified && (
                    <button type="button" disabled={busy} onClick={() => setVerifying(c.call)}>
                      Verify
                    </button>
                  )}
                  {!c.active && (
                    <button type="button" disabled={busy} onClick={() => post("/auth/callsign", { call: c.call })}>
                      Make active
                    </button>
                  )}
                  <button
                    type="button"
                    disabled={busy}
                    onClick={() => confirm(`Remove ${c.call} from your account? Its verification is lost.`) && post("/auth/callsigns", { remove: c.call })}
                  >
                    Remove
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {verifying && <VerifyPanel call={verifying} onDone={reload} onClose={() => setVerifying(null)} />}
      <form class="inline" onSubmit={add}>
        <label for="add-call">Add a callsign</label>
        <input id="add-call" value={call} placeholder="N0CALL" autocapitalize="characters" onInput={(e) => setCall((e.target as HTMLInputElement).value)} />
        <button type="submit" disabled={busy || !call.trim()}>
          Add
        </button>
      </form>
      {errorView}
    </Section>
  );
}
