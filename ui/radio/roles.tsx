/**
 * The station's roles on the Radio page: whether anything may go on the air
 * (RADIO_CALL verified), the iGate (RF to APRS-IS and back), the digipeater
 * and the station's own beacons, each with its counters, the reasons frames
 * were not gated or repeated, and the last frames gated and repeated. Read
 * from GET /api/ports (the `aprs-is` entry's `igate`, `digipeater`,
 * `beacons`); a role the gateway does not report is not shown.
 */
import type { BeaconsPort, DigipeaterPort, IgatePort, RadioPort } from "./types.ts";
import { When } from "../time.tsx";
import { DataTable } from "../components/data-table.tsx";

/** What is said when RADIO_CALL is not verified: nothing of the station goes out. */
export function OnAirNotice({ port }: { port: RadioPort | undefined }) {
  if (!port?.call || port.transmit) return null;
  return (
    <p class="notice warn" data-testid="not-on-air">
      <b>The station sends nothing on the air:</b> {port.call} (<code>RADIO_CALL</code>) is not verified on this instance. The digipeater repeats nothing, the
      iGate gates nothing to RF, the station's own beacons, telemetry and NODES broadcasts wait, and connections to it are refused; it only listens (what it
      hears is still stored, and gated to APRS-IS when IGATE is on). Verified users' own lines still go out under their calls. Verify {port.call} with the APRS
      challenge on the Account page, or <code>svc-gateway callsign verify</code>.
    </p>
  );
}

/** Why frames were not gated or repeated, in words; an unknown reason is shown as it is named. */
const REASON: Record<string, string> = {
  "no-gate-path": "TCPIP, TCPXX, NOGATE or RFONLY in the path",
  "third-party-internet": "third-party from the internet",
  "third-party-malformed": "third-party header malformed",
  "own-echo": "our own frame heard back",
  echo: "our own frame heard back",
  query: "general query (answered, not gated)",
  empty: "empty information field",
  duplicate: "duplicate within 30 s",
  malformed: "malformed",
  "uplink-down": "APRS-IS login down or not verified",
  "addressee-not-local": "addressee not heard here in 30 min",
  "addressee-on-aprs-is": "addressee since heard on APRS-IS",
  "sender-local": "sender heard on our radio",
  "not-a-message": "bulletin or telemetry definition",
  "not-for-rf": "not for RF",
  budget: "transmit budget (RADIO_TX_PER_MINUTE)",
  unverified: "RADIO_CALL not verified",
  "no-port": "no radio port connected",
  "used-up": "path used up",
  "too-many-hops": "more hops than DIGIPEAT_MAX_HOPS",
  "not-for-us": "not addressed through us",
  "not-ui": "not a UI frame",
  "not-verified": "RADIO_CALL not verified",
  "rate-limited": "transmit budget (RADIO_TX_PER_MINUTE)",
  "no-radio": "no radio",
};

function Reasons({ counts, testid }: { counts: Record<string, number | undefined> | undefined; testid: string }) {
  const rows = Object.entries(counts ?? {}).filter((e): e is [string, number] => typeof e[1] === "number" && e[1] > 0);
  if (!rows.length) return <span class="muted">none</span>;
  return (
    <ul class="reasons" data-testid={testid}>
      {rows
        .sort((a, b) => b[1] - a[1])
        .map(([k, n]) => (
          <li data-reason={k}>
            {REASON[k] ?? k}: <b>{n}</b>
          </li>
        ))}
    </ul>
  );
}

const onOff = (on: boolean, testid: string) => (
  <span class={on ? "tag" : "muted"} data-testid={testid}>
    {on ? "on" : "off"}
  </span>
);

export function RolesCard({
  radio,
  igate,
  digipeater,
  beacons,
}: {
  radio: RadioPort | undefined;
  igate: IgatePort | null;
  digipeater: DigipeaterPort | null;
  beacons: BeaconsPort | null;
}) {
  if (!igate && !digipeater && !beacons) return null;
  const transmit = !!radio?.transmit;
  return (
    <div class="card" data-testid="roles">
      <h2>Station roles</h2>
      <div class="table-scroll">
        <table class="table">
          <thead>
            <tr>
              <th>role</th>
              <th>state</th>
              <th>counters</th>
              <th>not gated or repeated, by reason</th>
            </tr>
          </thead>
          <tbody>
            {igate && (
              <tr data-role="igate">
                <td>iGate, RF to APRS-IS</td>
                <td>
                  {onOff(igate.rfToIs, "igate-rx")}
                  {igate.rfToIs && !igate.uplink && <div class="warn">no verified APRS-IS login: nothing goes up</div>}
                </td>
                <td data-testid="igate-counters">
                  {igate.heard} heard · {igate.gated} gated
                  {igate.answered ? ` · ${igate.answered} queries answered` : ""}
                </td>
                <td>
                  <Reasons counts={igate.dropped} testid="igate-dropped" />
                </td>
              </tr>
            )}
            {igate && (
              <tr data-role="igate-tx">
                <td>iGate, APRS-IS to RF</td>
                <td>
                  {onOff(igate.isToRf, "igate-tx")}
                  {igate.isToRf && !transmit && <div class="warn">RADIO_CALL not verified: nothing goes on the air</div>}
                </td>
                <td data-testid="igate-tx-counters">
                  {igate.fromIs} from APRS-IS · {igate.toRf.message} messages, {igate.toRf.position} positions, {igate.toRf.filter} by filter to RF ·{" "}
                  {igate.localStations} local stations
                </td>
                <td>
                  <Reasons counts={igate.notToRf} testid="igate-not-to-rf" />
                </td>
              </tr>
            )}
            {digipeater && (
              <tr data-role="digipeater">
                <td>Digipeater</td>
                <td>
                  <span class={digipeater.mode === "off" ? "muted" : "tag"} data-testid="digi-mode">
                    {digipeater.mode}
                  </span>
                  {digipeater.mode !== "off" && (
                    <div class="muted">
                      {[digipeater.call, ...(digipeater.aliases ?? [])].filter(Boolean).join(", ")}
                      {digipeater.mode === "wide" && ` · up to ${digipeater.maxHops} hops`}
                      {digipeater.viscousS > 0 && ` · viscous ${digipeater.viscousS} s`}
                    </div>
                  )}
                  {digipeater.mode !== "off" && !transmit && <div class="warn">RADIO_CALL not verified: repeats nothing</div>}
                </td>
                <td data-testid="digi-counters">
                  {digipeater.heard} heard · {digipeater.repeated} repeated
                  {digipeater.held ? ` · ${digipeater.held} held` : ""}
                </td>
                <td>
                  <Reasons counts={digipeater.dropped} testid="digi-dropped" />
                </td>
              </tr>
            )}
            {beacons && (
              <tr data-role="beacons">
                <td>Own beacons</td>
                <td>
                  <span class={beacons.state === "up" ? "tag" : beacons.state === "down" ? "warn" : "muted"} data-testid="beacons-state">
                    {beacons.state === "up" ? "on" : beacons.state === "down" ? "waiting" : "off"}
                  </span>
                  {beacons.paused && <div class="warn">{beacons.paused}</div>}
                  {!beacons.beacon && (
                    <div class="muted">
                      set <code>STATION_BEACON</code>
                    </div>
                  )}
                </td>
                <td data-testid="beacons-counters">
                  {beacons.beacon ? (
                    <span>
                      position and status every {beacons.beaconMinutes} min
                      {beacons.telemetryMinutes > 0 ? `, telemetry every ${beacons.telemetryMinutes} min` : ", no telemetry"} · {beacons.tx} sent · last
                      position <When at={beacons.positionAt} />
                      {beacons.call && (
                        <span>
                          {" "}
                          · <a href={`/station/${encodeURIComponent(beacons.call)}`}>station page</a>
                        </span>
                      )}
                    </span>
                  ) : (
                    <span class="muted">-</span>
                  )}
                </td>
                <td>
                  <span class="muted">-</span>
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
    </div>
  );
}

/** The last frames the iGate gated (both ways) and the digipeater repeated, newest first. */
export function RecentCard(props: { igate: IgatePort | null; digipeater: DigipeaterPort | null }) {
  // only the roles that are on
  const igate = props.igate && (props.igate.rfToIs || props.igate.isToRf) ? props.igate : null;
  const digipeater = props.digipeater && props.digipeater.mode !== "off" ? props.digipeater : null;
  const gated = igate?.recent ?? [];
  const repeated = digipeater?.recent ?? [];
  if (!igate && !digipeater) return null;
  return (
    <div class="card" data-testid="recent">
      {igate && (
        <div>
          <h2>Last gated</h2>
          <DataTable
            testid="gated"
            head={["when", "way", "line"]}
            rows={gated}
            empty="Nothing gated yet."
            rowAttrs={(g) => ({ "data-dir": g.dir })}
            cells={(g) => [<When at={g.at} />, g.dir === "rf-to-is" ? "RF to APRS-IS" : "APRS-IS to RF", <code>{g.line}</code>]}
          />
        </div>
      )}
      {digipeater && (
        <div>
          <h2>Last digipeated</h2>
          <DataTable
            testid="repeated"
            head={["when", "port", "heard", "sent"]}
            rows={repeated}
            empty="Nothing repeated yet."
            cells={(r) => [<When at={r.at} />, <code>{r.port}</code>, <code>{r.heard}</code>, <code>{r.sent}</code>]}
          />
        </div>
      )}
    </div>
  );
}
