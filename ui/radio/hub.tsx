/**
 * The station hub on the Radio page: the KISS and APRS-IS servers this
 * gateway runs for local programs (KISS_SERVER, APRSIS_LISTEN), each with
 * its clients (login, filter, packets in and out); a sysop disconnects one.
 */
import { api } from "../api.ts";
import { useAction } from "../hooks.ts";
import { DataTable } from "../components/data-table.tsx";
import type { HubPort } from "./types.ts";
import { When } from "../time.tsx";
import { t } from "../i18n/i18n.ts";

/** A server's name in words (radioHub.server.<name>), else its id. */
const title = (name: string) => t(`radioHub.server.${name}`, { defaultValue: name });

export function HubCard({ servers, sysop, onChange }: { servers: HubPort[]; sysop: boolean; onChange: () => void }) {
  const { run, errorView } = useAction();
  if (!servers.length) return null;
  const disconnect = (id: string) =>
    run(async () => {
      await api(`/api/hub/clients/${encodeURIComponent(id)}`, { method: "DELETE" });
      onChange();
    });
  return (
    <div class="card" data-testid="hub">
      <h2>{t("radioHub.title")}</h2>
      {errorView}
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
          <DataTable
            testid="hub-clients"
            stacked
            head={[
              t("radioHub.client"),
              t("radioHub.login"),
              t("radioHub.filter"),
              t("radioHub.inOut"),
              t("radioHub.refusedDropped"),
              t("radioHub.connected"),
              ...(sysop ? [""] : []),
            ]}
            rows={s.clients}
            rowAttrs={(c) => ({ "data-client": c.id })}
            cells={(c) => [
              <>
                {c.address ? <code>{c.address}</code> : <span class="muted">{c.id}</span>}
                {c.software && <div class="muted">{c.software}</div>}
              </>,
              c.login ? (
                <span>
                  {c.login} {c.verified ? <span class="tag">{t("radioHub.verified")}</span> : <span class="warn">{t("radioHub.readOnly")}</span>}
                </span>
              ) : (
                <span class="muted">-</span>
              ),
              c.filter ? <code>{c.filter}</code> : <span class="muted">-</span>,
              <span data-testid="client-counts">
                {c.rx} / {c.tx}
              </span>,
              <>
                {c.refused} · {c.dropped}
              </>,
              <When at={c.connectedAt} />,
              ...(sysop
                ? [
                    <button type="button" class="secondary" onClick={() => void disconnect(c.id)}>
                      {t("radioHub.disconnect")}
                    </button>,
                  ]
                : []),
            ]}
          />
        </div>
      ))}
    </div>
  );
}
