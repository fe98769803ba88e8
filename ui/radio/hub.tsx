/**
 * The station hub on the Radio page: the KISS and APRS-IS servers this
 * gateway runs for local programs (KISS_SERVER, APRSIS_LISTEN), each with
 * its clients (login, filter, packets in and out); a sysop disconnects one.
 */
import { useState } from "preact/hooks";
import { api } from "../api.ts";
import type { HubPort } from "./types.ts";
import { When } from "../time.tsx";

const TITLE: Record<string, string> = { "kiss-server": "KISS server", "aprsis-server": "APRS-IS server" };

export function HubCard({ servers, sysop, onChange }: { servers: HubPort[]; sysop: boolean; onChange: () => void }) {
  const [error, setError] = useState<string | null>(null);
  if (!servers.length) return null;
  const disconnect = async (id: string) => {
    setError(null);
    try {
      await api(`/api/hub/clients/${encodeURIComponent(id)}`, { method: "DELETE" });
      onChange();
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <div class="card" data-testid="hub">
      <h2>Station hub</h2>
      {error && <p class="error">{error}</p>}
      {servers.map((s) => (
        <div data-server={s.name}>
          <h3>
            {TITLE[s.name] ?? s.name} on <code>{s.listen}</code>{" "}
            <span class="muted">
              {s.clients.length} client{s.clients.length === 1 ? "" : "s"}
              {s.name === "kiss-server" &&
                ` · ${s.sent ?? 0} sent · ${s.refused ?? 0} refused (${s.txOff ?? 0} with KISS_SERVER_TX off, ${s.notAllowed ?? 0} from a call not verified here) · ${s.rateLimited ?? 0} rate-limited`}
              {s.name === "aprsis-server" && ` · ${s.served ?? 0} served · ${s.uploaded ?? 0} uploaded · ${s.gatedToRf ?? 0} gated to RF`}
            </span>
          </h3>
          {s.clients.length > 0 && (
            <div class="table-scroll">
              <table class="table stacked" data-testid="hub-clients">
                <thead>
                  <tr>
                    <th>client</th>
                    <th>login</th>
                    <th>filter</th>
                    <th>in / out</th>
                    <th>refused · dropped</th>
                    <th>connected</th>
                    {sysop && <th></th>}
                  </tr>
                </thead>
                <tbody>
                  {s.clients.map((c) => (
                    <tr data-client={c.id}>
                      <td data-label="client">
                        {c.address ? <code>{c.address}</code> : <span class="muted">{c.id}</span>}
                        {c.software && <div class="muted">{c.software}</div>}
                      </td>
                      <td data-label="login">
                        {c.login ? (
                          <span>
                            {c.login} {c.verified ? <span class="tag">verified</span> : <span class="warn">read-only</span>}
                          </span>
                        ) : (
                          <span class="muted">-</span>
                        )}
                      </td>
                      <td data-label="filter">{c.filter ? <code>{c.filter}</code> : <span class="muted">-</span>}</td>
                      <td data-label="in / out" data-testid="client-counts">
                        {c.rx} / {c.tx}
                      </td>
                      <td data-label="refused · dropped">
                        {c.refused} · {c.dropped}
                      </td>
                      <td data-label="connected">
                        <When at={c.connectedAt} />
                      </td>
                      {sysop && (
                        <td>
                          <button type="button" class="secondary" onClick={() => void disconnect(c.id)}>
                            disconnect
                          </button>
                        </td>
                      )}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </div>
      ))}
    </div>
  );
}
