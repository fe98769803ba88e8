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
import { LoadState } from "../states.tsx";
import { api } from "../api.ts";
import { useLoad, usePoll } from "../hooks.ts";
import { loadAccount } from "../account/session.ts";
import { beaconsPort, digipeaterPort, hubPorts, igatePort, radioPorts, type Heard, type RadioPort } from "../radio/types.ts";
import { OnAirNotice, RecentCard, RolesCard } from "../radio/roles.tsx";
import { HubCard } from "../radio/hub.tsx";
import { When } from "../time.tsx";
import { NodesCard } from "../radio/nodes.tsx";
import { CommandLog, TransmitCard } from "../radio/box.tsx";

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
        <h1>Radio</h1>
        {radio && radio[0] && <StationLine port={radio[0]} />}
      </div>
      <LoadState state={ports} what="the radio ports" />
      {radio && radio.length === 0 && (
        <p class="notice" data-testid="no-radio">
          This gateway has no radio port. Set <code>KISS_PORTS</code> (a TNC's KISS port, e.g. Direwolf's <code>tcp://127.0.0.1:8001</code>, or{" "}
          <code>serial:/dev/ttyUSB0@9600</code>) and <code>RADIO_CALL</code>, then restart it.
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
        receive only: RADIO_CALL is not set
      </span>
    );
  return (
    <span data-testid="station">
      station <b>{port.call}</b>{" "}
      {port.transmit ? (
        <span class="tag" title="RADIO_CALL is verified: the station transmits (beacons, NODES, digipeater, iGate to RF)">
          on the air
        </span>
      ) : (
        <span class="warn" title="RADIO_CALL is not verified on this instance: the station transmits nothing of its own (users' verified lines still go out)">
          not on the air
        </span>
      )}
    </span>
  );
}

const STATE_TEXT: Record<RadioPort["portState"], string> = {
  connected: "connected",
  connecting: "connecting…",
  waiting: "not connected",
  idle: "idle",
  closed: "closed",
};

function PortsTable({ ports }: { ports: RadioPort[] }) {
  return (
    <div class="card">
      <h2>Ports</h2>
      <div class="table-scroll">
        <table class="table stacked" data-testid="ports">
          <thead>
            <tr>
              <th>port</th>
              <th>state</th>
              <th>frames in / out</th>
              <th>bytes in / out</th>
              <th>errors · dropped · reconnects</th>
              <th>last heard</th>
              <th>last sent</th>
            </tr>
          </thead>
          <tbody>
            {ports.map((p) => (
              <tr data-port={p.name}>
                <td data-label="port">
                  <code>{p.name}</code>
                  <div class="muted">{p.kind}</div>
                </td>
                <td data-label="state">
                  <span
                    class={p.portState === "connected" ? "ok" : p.portState === "idle" || p.portState === "closed" ? "muted" : "warn"}
                    data-testid="port-state"
                  >
                    {STATE_TEXT[p.portState] ?? p.portState}
                  </span>
                  {p.portState === "connected" && p.connectedAt && (
                    <div class="muted">
                      since <When at={p.connectedAt} />
                    </div>
                  )}
                  {p.portState === "waiting" && p.retryAt && (
                    <div class="muted">
                      next try <When at={p.retryAt} />
                    </div>
                  )}
                  {p.auto && p.portState !== "connected" && <div class="muted">the default port (KISS_PORTS unset): no TNC there</div>}
                  {p.lastError && p.portState !== "connected" && <div class="error">{p.lastError}</div>}
                </td>
                <td data-label="frames in / out" data-testid="frames">
                  {p.framesIn} / {p.framesOut}
                </td>
                <td data-label="bytes in / out">
                  {p.bytesIn} / {p.bytesOut}
                </td>
                <td data-label="errors · dropped · reconnects">
                  {p.errors} · {p.dropped} · {p.reconnects}
                </td>
                <td data-label="last heard">
                  <When at={p.lastRxAt} />
                </td>
                <td data-label="last sent">
                  <When at={p.lastTxAt} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
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
        <h2>Heard</h2>
        {ports.length > 1 && (
          <select aria-label="port heard on" value={port} onChange={(e) => setPort((e.target as HTMLSelectElement).value)}>
            <option value="">all ports</option>
            {ports.map((p) => (
              <option value={p.name}>{p.name}</option>
            ))}
          </select>
        )}
      </div>
      {heard.error && <p class="error">{heard.error.message}</p>}
      {rows && rows.length === 0 && <p class="muted">Nobody heard yet.</p>}
      {rows && rows.length > 0 && (
        <div class="table-scroll">
          <table class="table" data-testid="mheard">
            <thead>
              <tr>
                <th>station</th>
                <th>port</th>
                <th>last heard</th>
                <th>first heard</th>
                <th>frames</th>
                <th>via</th>
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
                  <td>{h.via ? <code>{h.via}</code> : <span class="muted">direct</span>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
