/**
 * A station's page, as aprs.fi shows one: its map and recent track, motion,
 * current weather, one chart per quantity (weather and each telemetry
 * channel, named and unit-labelled from PARM/UNIT, scaled by EQNS), the
 * telemetry bits with their labels, its objects, its messages and its raw
 * packets, paged back.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { api, ApiError } from "../api.ts";
import { useLoad } from "../hooks.ts";
import { formatDate } from "../account/session.ts";
import { SmallMap } from "../components/small-map.tsx";
import { StationSymbol } from "../components/station-symbol.tsx";
import { Empty, Failed, Loading } from "../components/states.tsx";
import { chartUnit, compass, formatDdm, formatDistance, formatQ, Q, units, type Quantity, type UnitPref } from "../components/units.ts";
import { t } from "../i18n/i18n.ts";
import { When } from "../time.tsx";
import { distanceBearing } from "../offline/compass.tsx";
import type { Weather } from "../../src/lib/aprs/types.ts";
import type { AprsMessageRow as Message, RawPacket as Packet, StationDetail as Detail } from "../../src/stations/registry.ts";
import { weatherReadings } from "../stations/readings.tsx";

interface Channel {
  id: string;
  name: string;
  unit: string;
}
interface Series {
  telemetry: { channels: Channel[]; project?: string; points: Array<{ ts: number; seq?: number; values: Array<number | null> }> };
  wx: Array<{ ts: number } & Weather>;
}

const COLORS = ["#2b6cb0", "#c05621", "#2f855a", "#6b46c1", "#b7791f"];

/** The browser's time zone, as the charts' time axis names it ("Europe/Berlin, UTC+1"). */
function zoneName(at: number): string {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const offset = -new Date(at).getTimezoneOffset();
  const hm = `${Math.floor(Math.abs(offset) / 60)}${offset % 60 ? `:${String(Math.abs(offset) % 60).padStart(2, "0")}` : ""}`;
  return `${zone}, UTC${offset === 0 ? "" : `${offset > 0 ? "+" : "-"}${hm}`}`;
}

const COMPASS_TICKS = [0, 90, 180, 270, 360];
const COMPASS_WORDS = ["N", "E", "S", "W", "N"];

/**
 * One quantity over time: its own chart, axis labelled with its unit, the time
 * axis with the time zone. A `circular` quantity (a direction, 0-360°) is drawn
 * as points on a fixed N-E-S-W-N axis: no line plunges across the chart when
 * the wind swings through north.
 */
function Chart({
  title,
  unit,
  xs,
  series,
  circular = false,
}: {
  title: string;
  unit: string;
  xs: number[];
  series: Array<{ label: string; values: Array<number | null> }>;
  circular?: boolean;
}) {
  const el = useRef<HTMLDivElement>(null);
  const zone = xs.length ? zoneName(xs[xs.length - 1]!) : "";
  useEffect(() => {
    if (!el.current || xs.length === 0) return;
    const fmt = (v: number | null) => (v === null || v === undefined ? "–" : `${Math.round(v * 100) / 100}${unit ? " " + unit : ""}`);
    const plot = new uPlot(
      {
        width: Math.max(200, el.current.clientWidth - 8),
        height: 180,
        series: [
          {},
          ...series.map((s, k) => ({
            label: s.label,
            stroke: COLORS[k % COLORS.length],
            width: 2,
            value: (_u: uPlot, v: number | null) => fmt(v),
            ...(circular ? { paths: () => null, points: { show: true, size: 5, fill: COLORS[k % COLORS.length] } } : {}),
          })),
        ],
        scales: circular ? { y: { range: [0, 360] } } : {},
        axes: [
          { label: t("wx.time", { zone }), labelSize: 20 },
          circular
            ? {
                label: unit || undefined,
                size: 56,
                splits: () => COMPASS_TICKS,
                values: (_u: uPlot, ticks: number[]) => ticks.map((t) => COMPASS_WORDS[COMPASS_TICKS.indexOf(t)] ?? String(t)),
              }
            : { label: unit || undefined, size: 56 },
        ],
        legend: { show: series.length > 1 },
      },
      [xs.map((t) => t / 1000), ...series.map((s) => s.values)] as uPlot.AlignedData,
      el.current,
    );
    return () => plot.destroy();
  }, [xs, series, unit, circular, zone]);
  return (
    <figure class="chart" data-testid="chart" data-unit={unit} data-zone={zone} data-circular={circular ? "" : undefined}>
      <h3>{unit ? `${title} (${unit})` : title}</h3>
      <div ref={el} />
    </figure>
  );
}

interface WxChart {
  /** keys of ui/i18n, as the series' labels */
  title: string;
  q: Quantity | null;
  unit?: string;
  keys: Array<[keyof Weather, string]>;
  /** a direction (0-360°): drawn on a compass axis */
  circular?: boolean;
}
const WX_CHARTS: WxChart[] = [
  { title: "wx.temperature", q: Q.temp, keys: [["tempC", "wx.temperature"]] },
  { title: "wx.pressure", q: Q.pressure, keys: [["pressureHpa", "wx.pressure"]] },
  { title: "wx.humidity", q: null, unit: "%", keys: [["humidityPct", "wx.humidity"]] },
  {
    title: "wx.wind",
    q: Q.speed,
    keys: [
      ["windSpeedKmh", "wx.speed"],
      ["windGustKmh", "wx.gust"],
    ],
  },
  { title: "wx.windDir", q: null, unit: "°", keys: [["windDirDeg", "wx.direction"]], circular: true },
  {
    title: "wx.rain",
    q: Q.rain,
    keys: [
      ["rain1hMm", "wx.lastHour"],
      ["rain24hMm", "wx.last24h"],
      ["rainMidnightMm", "wx.sinceMidnight"],
    ],
  },
  { title: "wx.luminosity", q: null, unit: "W/m²", keys: [["luminosityWm2", "wx.luminosity"]] },
  { title: "wx.snow", q: Q.rain, keys: [["snow24hMm", "wx.last24h"]] },
];

function WeatherCharts({ wx, pref }: { wx: Series["wx"]; pref: UnitPref }) {
  const xs = wx.map((w) => w.ts);
  const charts = WX_CHARTS.map((c) => {
    const keys = c.keys.filter(([k]) => wx.some((w) => w[k] !== undefined));
    if (!keys.length) return null;
    const u = c.q ? chartUnit(c.q, pref) : { unit: c.unit!, map: (v: number) => v };
    return (
      <Chart
        title={t(c.title)}
        unit={u.unit}
        circular={c.circular}
        xs={xs}
        series={keys.map(([k, label]) => ({ label: t(label), values: wx.map((w) => (w[k] === undefined ? null : u.map(w[k]!))) }))}
      />
    );
  }).filter(Boolean);
  return <div class="charts">{charts}</div>;
}

function CurrentWeather({ wx, at, pref }: { wx: Weather; at?: number; pref: UnitPref }) {
  const items = weatherReadings(wx, pref);
  return (
    <section>
      <h2>{t("station.currentWeather")}</h2>
      {at && <p class="muted">{t("wx.reported", { when: formatDate(at) })}</p>}
      <ul class="readings" data-testid="current-weather">
        {items.map(([q, v]) => (
          <li>
            <span class="q">{q}</span> <span class="v">{v}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

function Telemetry({ t: tm }: { t: Series["telemetry"] }) {
  const xs = tm.points.map((p) => p.ts);
  const last = tm.points[tm.points.length - 1]!;
  const analog = tm.channels.map((c, k) => ({ c, k })).filter(({ c }) => c.id.startsWith("A"));
  const bits = tm.channels.map((c, k) => ({ c, k })).filter(({ c }) => c.id.startsWith("B"));
  return (
    <section>
      <h2>
        {t("station.telemetry")}
        {tm.project ? `: ${tm.project}` : ""}
      </h2>
      <p class="muted">
        {t("station.lastReport", { when: formatDate(last.ts) })}
        {last.seq !== undefined ? t("station.sequence", { seq: last.seq }) : ""}
      </p>
      <ul class="readings" data-testid="telemetry-now">
        {analog.map(({ c, k }) => (
          <li>
            <span class="q">{c.name}</span>{" "}
            <span class="v">{last.values[k] === null || last.values[k] === undefined ? "–" : `${last.values[k]}${c.unit ? " " + c.unit : ""}`}</span>
          </li>
        ))}
      </ul>
      {bits.length > 0 && (
        <ul class="bits" data-testid="telemetry-bits" aria-label={t("station.digital")}>
          {bits.map(({ c, k }) => (
            <li class={last.values[k] === 1 ? "on" : "off"}>
              {c.name}: {last.values[k] === 1 ? t("station.on") : t("station.off")}
            </li>
          ))}
        </ul>
      )}
      <div class="charts">
        {analog.map(({ c, k }) => (
          <Chart title={c.name} unit={c.unit} xs={xs} series={[{ label: c.name, values: tm.points.map((p) => p.values[k] ?? null) }]} />
        ))}
      </div>
    </section>
  );
}

/** The raw packet ring, newest first, paged back with `before`. */
function Packets({ call }: { call: string }) {
  const [pages, setPages] = useState<Packet[][]>([]);
  const [next, setNext] = useState<number | null>(null);
  const [state, setState] = useState<{ loading: boolean; error: Error | null }>({ loading: true, error: null });
  const load = (before: number | null) => {
    setState({ loading: true, error: null });
    api<{ packets: Packet[]; next: number | null }>(`/api/stations/${encodeURIComponent(call)}/packets?limit=25${before ? `&before=${before}` : ""}`).then(
      (r) => {
        setPages((p) => (before ? [...p, r.packets] : [r.packets]));
        setNext(r.next);
        setState({ loading: false, error: null });
      },
      (e: Error) => setState({ loading: false, error: e }),
    );
  };
  useEffect(() => load(null), [call]);
  const rows = pages.flat();
  return (
    <section>
      <h2>{t("station.rawPackets")}</h2>
      {rows.length > 0 && (
        <table class="table packets" data-testid="packets">
          <thead>
            <tr>
              <th>{t("station.heardCol")}</th>
              <th>{t("station.packetCol")}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((p) => (
              <tr>
                <td class="nowrap">{formatDate(p.ts)}</td>
                <td>
                  <code>{p.raw}</code>
                  <div class="muted">
                    {p.type ?? "?"} · {p.source === "rf" && p.igate ? t("station.rfVia", { igate: p.igate }) : p.source}
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {state.loading && <Loading what={t("station.thePackets")} />}
      {state.error && <Failed error={state.error} what={t("station.thePackets")} />}
      {!state.loading && !state.error && rows.length === 0 && <Empty>{t("station.noPackets")}</Empty>}
      {next !== null && !state.loading && (
        <button type="button" onClick={() => load(next)}>
          {t("station.older")}
        </button>
      )}
    </section>
  );
}

function Messages({ call }: { call: string }) {
  const m = useLoad(() => api<{ messages: Message[] }>(`/api/messages?call=${encodeURIComponent(call)}&limit=50`), [call]);
  return (
    <section>
      <h2>{t("station.messages")}</h2>
      {m.loading && <Loading what={t("station.theMessages")} />}
      {m.error && <Failed error={m.error} what={t("station.theMessages")} />}
      {m.data && m.data.messages.length === 0 && <Empty>{t("station.noMessages", { call })}</Empty>}
      {m.data && m.data.messages.length > 0 && (
        <table class="table" data-testid="messages">
          <tbody>
            {m.data.messages.map((x) => (
              <tr>
                <td class="nowrap">{formatDate(x.ts)}</td>
                <td>
                  <a href={`/station/${encodeURIComponent(x.src)}`}>{x.src}</a> → {x.addressee}
                  {x.kind !== "message" && <span class="muted"> ({x.kind})</span>}
                  <div>{x.text}</div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** The length of a track along its positions, in metres. */
function trackLength(track: Array<{ lat: number; lon: number }>): number {
  let m = 0;
  for (let i = 1; i < track.length; i++) m += distanceBearing(track[i - 1]!, track[i]!).m;
  return m;
}

export function StationPage({ call }: { call: string }) {
  const c = decodeURIComponent(call);
  // the page may have come with this answer (src/http/first-view.ts)
  const path = `/api/stations/${encodeURIComponent(c)}`;
  const detail = useLoad(() => api<Detail>(path), [c], path);
  const series = useLoad(() => api<Series>(`/api/stations/${encodeURIComponent(c)}/series`), [c]);
  // this browser's choice, or the account's once the header has brought it (syncAccountPrefs)
  const pref = units();
  if (detail.error) {
    return (
      <section class="page">
        <h1>{c}</h1>
        {detail.error instanceof ApiError && detail.error.code === "not_saved" ? (
          // offline, the service worker says the station is not in a saved area
          <p class="error" role="alert">
            {detail.error.message}
          </p>
        ) : detail.error instanceof ApiError && detail.error.status === 404 ? (
          <Empty>{t("station.notHeard", { call: c })}</Empty>
        ) : (
          <Failed error={detail.error} what={t("station.theStation")} />
        )}
      </section>
    );
  }
  const d = detail.data;
  if (!d) {
    return (
      <section class="page">
        <h1>{c}</h1>
        <Loading what={t("station.theStation")} />
      </section>
    );
  }
  const s = series.data;
  const track: Array<[number, number]> = d.track.map((p) => [p.lat, p.lon]);
  return (
    <section class="page station-page">
      <h1>
        <StationSymbol symbol={d.symbol} /> {d.call}
      </h1>
      {d.comment && <p>{d.comment}</p>}
      {d.lat !== undefined && d.lon !== undefined ? (
        <SmallMap lat={d.lat} lon={d.lon} track={track} label={d.call} />
      ) : (
        <Empty>{t("station.noPosition")}</Empty>
      )}
      <dl class="facts" data-testid="station-facts">
        {d.kind !== "station" && (
          <>
            <dt>{t("station.kind")}</dt>
            <dd>
              {d.kind}
              {d.owner && (
                <>
                  {" "}
                  {t("station.by")} <a href={`/station/${encodeURIComponent(d.owner)}`}>{d.owner}</a>
                </>
              )}
            </dd>
          </>
        )}
        {d.lat !== undefined && d.lon !== undefined && (
          <>
            <dt>{t("station.position")}</dt>
            <dd>
              {formatDdm(d.lat, d.lon)} ({d.lat.toFixed(5)}, {d.lon.toFixed(5)})
              {d.lastPositionAt && (
                <span class="muted">
                  {" "}
                  {t("station.at")} {formatDate(d.lastPositionAt)}
                </span>
              )}
            </dd>
          </>
        )}
        {d.speedKmh !== undefined && (
          <>
            <dt>{t("station.speed")}</dt>
            <dd>{formatQ(d.speedKmh, Q.speed, pref)}</dd>
          </>
        )}
        {d.course !== undefined && (
          <>
            <dt>{t("station.course")}</dt>
            <dd>
              {d.course}° {compass(d.course)}
            </dd>
          </>
        )}
        {d.altitudeM !== undefined && (
          <>
            <dt>{t("station.altitude")}</dt>
            <dd>{formatQ(d.altitudeM, Q.altitude, pref)}</dd>
          </>
        )}
        {d.track.length > 1 && (
          <>
            <dt>{t("station.track")}</dt>
            <dd data-testid="track-length">{t("station.trackPositions", { count: d.track.length, distance: formatDistance(trackLength(d.track), pref) })}</dd>
          </>
        )}
        <dt>{t("station.lastHeard")}</dt>
        <dd>
          <When at={d.lastHeard} />
        </dd>
        {d.source && (
          <>
            <dt>{t("station.heard")}</dt>
            <dd>{d.source === "rf" ? t("station.onRf", { igate: d.igate }) : t("station.via", { source: d.source })}</dd>
          </>
        )}
        {d.path && (
          <>
            <dt>{t("station.path")}</dt>
            <dd>
              <code>{d.path}</code>
            </dd>
          </>
        )}
        {d.status && (
          <>
            <dt>{t("station.status")}</dt>
            <dd>{d.status}</dd>
          </>
        )}
        {d.device && (
          <>
            <dt>{t("station.device")}</dt>
            <dd>{d.device}</dd>
          </>
        )}
        <dt>{t("station.packets")}</dt>
        <dd>{d.packets}</dd>
      </dl>
      {d.heard.length > 0 && (
        <details>
          <summary>{t("station.pathsHeard")}</summary>
          <ul data-testid="heard">
            {d.heard.slice(0, 10).map((h) => (
              <li>
                {formatDate(h.ts)} <code>{h.path ?? t("gameStation.direct")}</code> {h.igate ? `(RF, ${h.igate})` : `(${h.source})`}
              </li>
            ))}
          </ul>
        </details>
      )}
      {d.wx && Object.keys(d.wx).length > 0 && <CurrentWeather wx={d.wx} at={d.wxAt} pref={pref} />}
      {series.loading && <Loading what={t("station.history")} />}
      {series.error && <Failed error={series.error} what={t("station.history")} />}
      {s && s.wx.length > 0 && (
        <section>
          <h2>{t("station.weatherHistory")}</h2>
          <WeatherCharts wx={s.wx} pref={pref} />
        </section>
      )}
      {s && s.telemetry.points.length > 0 && <Telemetry t={s.telemetry} />}
      {d.objects.length > 0 && (
        <section>
          <h2>{t("station.objects")}</h2>
          <ul data-testid="objects">
            {d.objects.map((o) => (
              <li>
                <a href={`/station/${encodeURIComponent(o)}`}>{o}</a>
              </li>
            ))}
          </ul>
        </section>
      )}
      <Messages call={d.call} />
      <Packets call={d.call} />
    </section>
  );
}
