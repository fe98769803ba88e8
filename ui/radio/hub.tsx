/**
 * The station hub on the Radio page: the KISS and APRS-IS servers this
 * gateway runs for local programs (KISS_SERVER, APRSIS_LISTEN), each with
 * its clients (login, filter, packets in and out); a sysop disconnects one.
 */
import { useState } from "preact/hooks";
import { api } from "../api.ts";
import type { HubPort } from "./types.ts";
import { When } from "../time.tsx";
import { t } from "../i18n/i18n.ts";

/** A server's name in words (radioHub.server.<name>), else its id. */
const title = (name: string) => t(`radioHub.server.${name}`, { defaultValue: name });

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
      <h2>{t("radioHub.title")}</h2>
      {error && <p class="error">{error}</p>}
      {servers.map((s) => (
        <div data-server={s.name}>
          <h3>
            {title(s.name)} {t("radioHub.on")} <code>{s.listen}</code>{" "}
            <span class="muted">
              {t("radioHub.clients", { count: s.clients.length })}
              {s.name === "kiss-server" &&
                t("radioHub.kissCounts", {
                  sent: s.sent ?? 0,
                  refused: s.refused ?? 0,
                  txOff: s.txOff ?? 0,
                  notAllowed: s.notAllowed ?? 0,
                  rateLimited: s.rateLimited ?? 0,
                })}
              {s.name === "aprsis-server" && t("radioHub.isCounts", { served: s.served ?? 0, uploaded: s.uploaded ?? 0, gated: s.gatedToRf ?? 0 })}
            </span>
          </h3>
          {s.clients.length > 0 && (
            <div class="table-scroll">
              <table class="table stacked" data-testid="hub-clients">
                <thead>
                  <tr>
                    <th>{t("radioHub.client")}</th>
                    <th>{t("radioHub.login")}</th>
                    <th>{t("radioHub.filter")}</th>
                    <th>{t("radioHub.inOut")}</th>
                    <th>{t("radioHub.refusedDropped")}</th>
                    <th>{t("radioHub.connected")}</th>
                    {sysop && <th></th>}
                  </tr>
                </thead>
                <tbody>
                  {s.clients.map((c) => (
                    <tr data-client={c.id}>
                      <td data-label={t("radioHub.client")}>
                        {c.address ? <code>{c.address}</code> : <span class="muted">{c.id}</span>}
                        {c.software && <div class="muted">{c.software}</div>}
                      </td>
                      <td data-label={t("radioHub.login")}>
                        {c.login ? (
                          <span>
                            {c.login} {c.verified ? <span class="tag">{t("radioHub.verified")}</span> : <span class="warn">{t("radioHub.readOnly")}</span>}
                          </span>
                        ) : (
                          <span class="muted">-</span>
                        )}
                      </td>
                      <td data-label={t("radioHub.filter")}>{c.filter ? <code>{c.filter}</code> : <span class="muted">-</span>}</td>
                      <td data-label={t("radioHub.inOut")} data-testid="client-counts">
                        {c.rx} / {c.tx}
                      </td>
                      <td data-label={t("radioHub.refusedDropped")}>
                        {c.refused} · {c.dropped}
                      </td>
                      <td data-label={t("radioHub.connected")}>
                        <When at={c.connectedAt} />
                      </td>
                      {sysop && (
                        <td>
                          <button type="button" class="secondary" onClick={() => void disconnect(c.id)}>
                            {t("radioHub.disconnect")}
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
