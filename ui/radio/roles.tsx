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
import { t } from "../i18n/i18n.ts";
import { Rich } from "../i18n/rich.tsx";

/** What is said when RADIO_CALL is not verified: nothing of the station goes out. */
export function OnAirNotice({ port }: { port: RadioPort | undefined }) {
  if (!port?.call || port.transmit) return null;
  return (
    <p class="notice warn" data-testid="not-on-air">
      <Rich k="radioRoles.notOnAir" vars={{ call: port.call }} parts={[(x) => <b>{x}</b>, code, code]} />
    </p>
  );
}

/** Why frames were not gated or repeated, in words (radioRoles.reason.<id>); an unknown reason is shown as it is named. */
const reason = (id: string) => t(`radioRoles.reason.${id}`, { defaultValue: id });

/** The digipeater's mode in words (off, fill-in, wide), else as the server names it. */
const digiMode = (mode: string) => t(`radioRoles.mode.${mode}`, { defaultValue: mode });

const code = (x: string) => <code>{x}</code>;

function Reasons({ counts, testid }: { counts: Record<string, number | undefined> | undefined; testid: string }) {
  const rows = Object.entries(counts ?? {}).filter((e): e is [string, number] => typeof e[1] === "number" && e[1] > 0);
  if (!rows.length) return <span class="muted">{t("radioRoles.none")}</span>;
  return (
    <ul class="reasons" data-testid={testid}>
      {rows
        .sort((a, b) => b[1] - a[1])
        .map(([k, n]) => (
          <li data-reason={k}>
            {reason(k)}: <b>{n}</b>
          </li>
        ))}
    </ul>
  );
}

const onOff = (on: boolean, testid: string) => (
  <span class={on ? "tag" : "muted"} data-testid={testid}>
    {on ? t("radioRoles.on") : t("radioRoles.off")}
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
      <h2>{t("radioRoles.title")}</h2>
      <div class="table-scroll">
        <table class="table">
          <thead>
            <tr>
              <th>{t("radioRoles.role")}</th>
              <th>{t("radioRoles.state")}</th>
              <th>{t("radioRoles.counters")}</th>
              <th>{t("radioRoles.byReason")}</th>
            </tr>
          </thead>
          <tbody>
            {igate && (
              <tr data-role="igate">
                <td>{t("radioRoles.igateRx")}</td>
                <td>
                  {onOff(igate.rfToIs, "igate-rx")}
                  {igate.rfToIs && !igate.uplink && <div class="warn">{t("radioRoles.noUplink")}</div>}
                </td>
                <td data-testid="igate-counters">
                  {t("radioRoles.igateCounts", { heard: igate.heard, gated: igate.gated })}
                  {igate.answered ? t("radioRoles.answered", { count: igate.answered }) : ""}
                </td>
                <td>
                  <Reasons counts={igate.dropped} testid="igate-dropped" />
                </td>
              </tr>
            )}
            {igate && (
              <tr data-role="igate-tx">
                <td>{t("radioRoles.igateTx")}</td>
                <td>
                  {onOff(igate.isToRf, "igate-tx")}
                  {igate.isToRf && !transmit && <div class="warn">{t("radioRoles.txUnverified")}</div>}
                </td>
                <td data-testid="igate-tx-counters">
                  {t("radioRoles.igateTxCounts", {
                    fromIs: igate.fromIs,
                    message: igate.toRf.message,
                    position: igate.toRf.position,
                    filter: igate.toRf.filter,
                    local: igate.localStations,
                  })}
                </td>
                <td>
                  <Reasons counts={igate.notToRf} testid="igate-not-to-rf" />
                </td>
              </tr>
            )}
            {digipeater && (
              <tr data-role="digipeater">
                <td>{t("radioRoles.digipeater")}</td>
                <td>
                  <span class={digipeater.mode === "off" ? "muted" : "tag"} data-testid="digi-mode">
                    {digiMode(digipeater.mode)}
                  </span>
                  {digipeater.mode !== "off" && (
                    <div class="muted">
                      {[digipeater.call, ...(digipeater.aliases ?? [])].filter(Boolean).join(", ")}
                      {digipeater.mode === "wide" && t("radioRoles.upTo", { count: digipeater.maxHops })}
                      {digipeater.viscousS > 0 && t("radioRoles.viscous", { span: t("time.s", { count: digipeater.viscousS }) })}
                    </div>
                  )}
                  {digipeater.mode !== "off" && !transmit && <div class="warn">{t("radioRoles.digiUnverified")}</div>}
                </td>
                <td data-testid="digi-counters">
                  {t("radioRoles.digiCounts", { heard: digipeater.heard, repeated: digipeater.repeated })}
                  {digipeater.held ? t("radioRoles.held", { count: digipeater.held }) : ""}
                </td>
                <td>
                  <Reasons counts={digipeater.dropped} testid="digi-dropped" />
                </td>
              </tr>
            )}
            {beacons && (
              <tr data-role="beacons">
                <td>{t("radioRoles.beacons")}</td>
                <td>
                  <span class={beacons.state === "up" ? "tag" : beacons.state === "down" ? "warn" : "muted"} data-testid="beacons-state">
                    {beacons.state === "up" ? t("radioRoles.on") : beacons.state === "down" ? t("radioRoles.waiting") : t("radioRoles.off")}
                  </span>
                  {beacons.paused && <div class="warn">{beacons.paused}</div>}
                  {!beacons.beacon && (
                    <div class="muted">
                      <Rich k="radioRoles.setBeacon" parts={[code]} />
                    </div>
                  )}
                </td>
                <td data-testid="beacons-counters">
                  {beacons.beacon ? (
                    <span>
                      {t("radioRoles.beaconEvery", { span: t("time.min", { count: beacons.beaconMinutes }) })}
                      {beacons.telemetryMinutes > 0
                        ? t("radioRoles.telemetryEvery", { span: t("time.min", { count: beacons.telemetryMinutes }) })
                        : t("radioRoles.noTelemetry")}
                      {t("radioRoles.sentLast", { count: beacons.tx })} <When at={beacons.positionAt} />
                      {beacons.call && (
                        <span>
                          {" "}
                          · <a href={`/station/${encodeURIComponent(beacons.call)}`}>{t("radioRoles.stationPage")}</a>
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
          <h2>{t("radioRoles.lastGated")}</h2>
          <DataTable
            testid="gated"
            head={[t("radioRoles.when"), t("radioRoles.way"), t("radioRoles.line")]}
            rows={gated}
            empty={t("radioRoles.nothingGated")}
            rowAttrs={(g) => ({ "data-dir": g.dir })}
            cells={(g) => [<When at={g.at} />, g.dir === "rf-to-is" ? t("radioRoles.rfToIs") : t("radioRoles.isToRf"), <code>{g.line}</code>]}
          />
        </div>
      )}
      {digipeater && (
        <div>
          <h2>{t("radioRoles.lastDigipeated")}</h2>
          <DataTable
            testid="repeated"
            head={[t("radioRoles.when"), t("radioRoles.port"), t("radioRoles.heardCol"), t("radioRoles.sentCol")]}
            rows={repeated}
            empty={t("radioRoles.nothingRepeated")}
            cells={(r) => [<When at={r.at} />, <code>{r.port}</code>, <code>{r.heard}</code>, <code>{r.sent}</code>]}
          />
        </div>
      )}
    </div>
  );
}
