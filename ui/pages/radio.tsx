/**
 * Radio: this gateway's KISS ports with their state and counters, whether
 * anything may go on the air (RADIO_CALL verified), the station's roles
 * (iGate, digipeater, own beacons) with their counters, the reasons frames
 * were not gated or repeated and the last ones that were, the
 * stations they hear (MHeard), the NET/ROM NODES table (the sysop adds and
 * removes routes), a transmit form (a verified callsign sends an APRS
 * message, position or status through the local box) and the local box's
 * command log, and the station hub's KISS and APRS-IS servers with their
 * clients. Ports, MHeard, NODES and the log refresh every few seconds.
 */
import { useState } from "preact/hooks";
import { LoadState } from "../components/states.tsx";
import { DataTable } from "../components/data-table.tsx";
import { api } from "../api.ts";
import { useLoad, usePoll } from "../hooks.ts";
import { loadAccount } from "../account/session.ts";
import { beaconsPort, digipeaterPort, hubPorts, igatePort, radioPorts, type Heard, type RadioPort } from "../radio/types.ts";
import { OnAirNotice, RecentCard, RolesCard } from "../radio/roles.tsx";
import { HubCard } from "../radio/hub.tsx";
import { When } from "../time.tsx";
import { NodesCard } from "../radio/nodes.tsx";
import { CommandLog, TransmitCard } from "../radio/box.tsx";
import { t } from "../i18n/i18n.ts";
import { Rich } from "../i18n/rich.tsx";

/** How often the page refreshes what the radio reports. */
const REFRESH_MS = 5000;

export function RadioPage() {
  const tick = usePoll(REFRESH_MS);
  const [accountVersion, setAccountVersion] = useState(0);
  const [sent, setSent] = useState(0);
  const [hubVersion, setHubVersion] = useState(0);
  const ports = useLoad(() => api<{ ports: Array<Record<string, unknown>> }>("/api/ports"), [tick, hubVersion, accountVersion]);
  const account = useLoad(loadAccount, [accountVersion]);
  const radio = ports.data && radioPorts(ports.data.ports);
  const me = account.data ?? null;
  return (
    <section class="page radio">
      <div class="page-head">
        <h1>{t("radio.title")}</h1>
        {radio && radio[0] && <StationLine port={radio[0]} />}
      </div>
      <LoadState state={ports} what={t("radio.thePorts")} />
      {radio && radio.length === 0 && (
        <p class="notice" data-testid="no-radio">
          <Rich k="radio.noPort" parts={[code, code, code, code]} />
        </p>
      )}
      {radio && <OnAirNotice port={radio[0]} />}
      {radio && radio.length > 0 && <PortsTable ports={radio} />}
      {ports.data && radio && radio.length > 0 && (
        <RolesCard
          radio={radio?.[0]}
          igate={igatePort(ports.data.ports)}
          digipeater={digipeaterPort(ports.data.ports)}
          beacons={beaconsPort(ports.data.ports)}
        />
      )}
      {ports.data && radio && radio.length > 0 && <RecentCard igate={igatePort(ports.data.ports)} digipeater={digipeaterPort(ports.data.ports)} />}
      {ports.data && <HubCard servers={hubPorts(ports.data.ports)} sysop={!!me?.sysop} onChange={() => setHubVersion((n) => n + 1)} />}
      <MHeardCard tick={tick} ports={radio ?? []} />
      <NodesCard tick={tick} sysop={!!me?.sysop} ports={radio ?? []} />
      <TransmitCard
        account={account.loading && !account.data ? undefined : me}
        ports={radio}
        tick={tick + sent}
        onSent={() => setSent((n) => n + 1)}
        onRefused={() => setAccountVersion((n) => n + 1)}
      />
      <CommandLog tick={tick + sent} account={account.loading && !account.data ? undefined : me} />
    </section>
  );
}

function StationLine({ port }: { port: RadioPort }) {
  if (!port.call)
    return (
      <span class="muted" data-testid="station">
        {t("radio.receiveOnly")}
      </span>
    );
  return (
    <span data-testid="station">
      {t("radio.station")} <b>{port.call}</b>{" "}
      {port.transmit ? (
        <span class="tag" title={t("radio.onAirTitle")}>
          {t("radio.onAir")}
        </span>
      ) : (
        <span class="warn" title={t("radio.offAirTitle")}>
          {t("radio.offAir")}
        </span>
      )}
    </span>
  );
}

const code = (s: string) => <code>{s}</code>;

/** A port's state in words (radio.portState.<state>); a state the page does not know, as the server names it. */
const stateText = (s: string) => t(`radio.portState.${s}`, { defaultValue: s });

function PortsTable({ ports }: { ports: RadioPort[] }) {
  return (
    <div class="card">
      <h2>{t("radio.ports")}</h2>
      <DataTable
        testid="ports"
        stacked
        head={[t("radio.port"), t("radio.state"), t("radio.framesInOut"), t("radio.bytesInOut"), t("radio.errors"), t("radio.lastHeard"), t("radio.lastSent")]}
        rows={ports}
        rowAttrs={(p) => ({ "data-port": p.name })}
        cells={(p) => [
          <>
            <code>{p.name}</code>
            <div class="muted">{p.kind}</div>
          </>,
          <>
            <span class={p.portState === "connected" ? "ok" : p.portState === "idle" || p.portState === "closed" ? "muted" : "warn"} data-testid="port-state">
              {stateText(p.portState)}
            </span>
            {p.portState === "connected" && p.connectedAt && (
              <div class="muted">
                {t("radio.since")} <When at={p.connectedAt} />
              </div>
            )}
            {p.portState === "waiting" && p.retryAt && (
              <div class="muted">
                {t("radio.nextTry")} <When at={p.retryAt} />
              </div>
            )}
            {p.auto && p.portState !== "connected" && <div class="muted">{t("radio.defaultPort")}</div>}
            {p.lastError && p.portState !== "connected" && <div class="error">{p.lastError}</div>}
          </>,
          <span data-testid="frames">
            {p.framesIn} / {p.framesOut}
          </span>,
          <>
            {p.bytesIn} / {p.bytesOut}
          </>,
          <>
            {p.errors} · {p.dropped} · {p.reconnects}
          </>,
          <When at={p.lastRxAt} />,
          <When at={p.lastTxAt} />,
        ]}
      />
    </div>
  );
}

function MHeardCard({ tick, ports }: { tick: number; ports: RadioPort[] }) {
  const [port, setPort] = useState("");
  const heard = useLoad(() => api<{ heard: Heard[] }>(`/api/node/mheard?limit=200${port ? "&port=" + encodeURIComponent(port) : ""}`), [tick, port]);
  const rows = heard.data?.heard;
  return (
    <div class="card">
      <div class="page-head">
        <h2>{t("radio.heard")}</h2>
        {ports.length > 1 && (
          <select aria-label={t("radio.heardOn")} value={port} onChange={(e) => setPort((e.target as HTMLSelectElement).value)}>
            <option value="">{t("radio.allPorts")}</option>
            {ports.map((p) => (
              <option value={p.name}>{p.name}</option>
            ))}
          </select>
        )}
      </div>
      {heard.error && <p class="error">{heard.error.message}</p>}
      {rows && rows.length === 0 && <p class="muted">{t("radio.nobodyHeard")}</p>}
      {rows && rows.length > 0 && (
        <div class="table-scroll">
          <table class="table" data-testid="mheard">
            <thead>
              <tr>
                <th>{t("radio.station")}</th>
                <th>{t("radio.port")}</th>
                <th>{t("radio.lastHeard")}</th>
                <th>{t("radio.firstHeard")}</th>
                <th>{t("radio.frames")}</th>
                <th>{t("radio.via")}</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((h) => (
                <tr data-call={h.call}>
                  <td>{h.station ? <a href={`/station/${encodeURIComponent(h.call)}`}>{h.call}</a> : <b>{h.call}</b>}</td>
                  <td>
                    <code>{h.port}</code>
                  </td>
                  <td>
                    <When at={h.lastAt} />
                  </td>
                  <td>
                    <When at={h.firstAt} />
                  </td>
                  <td data-testid="heard-frames">{h.frames}</td>
                  <td>{h.via ? <code>{h.via}</code> : <span class="muted">{t("radio.direct")}</span>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
