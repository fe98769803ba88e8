import { useEffect, useRef } from "preact/hooks";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { api } from "../api.ts";
import { useLoad } from "../hooks.ts";

interface Detail {
  call: string;
  kind: string;
  lat?: number;
  lon?: number;
  symbol?: string;
  comment?: string;
  status?: string;
  device?: string;
  lastHeard: number;
  source?: string;
  igate?: string;
  heard: Array<{ ts: number; path: string | null; source: string; igate: string | null; via: string | null }>;
}
interface Series {
  telemetry: { channels: Array<{ id: string; name: string; unit: string }>; points: Array<{ ts: number; values: Array<number | null> }> };
  wx: Array<{ ts: number; [k: string]: number }>;
}

function Chart({ title, xs, series }: { title: string; xs: number[]; series: Array<{ label: string; values: Array<number | null> }> }) {
  const el = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!el.current || xs.length === 0) return;
    const plot = new uPlot(
      { title, width: Math.min(760, el.current.clientWidth || 760), height: 220, series: [{}, ...series.map((s, k) => ({ label: s.label, stroke: ["#2b6cb0", "#c05621", "#2f855a", "#6b46c1", "#b7791f"][k % 5] }))] },
      [xs.map((t) => t / 1000), ...series.map((s) => s.values)] as uPlot.AlignedData,
      el.current,
    );
    return () => plot.destroy();
  }, [xs, series]);
  return <div ref={el} class="chart" data-testid="chart" />;
}

export function StationPage({ call }: { call: string }) {
  const c = decodeURIComponent(call);
  const detail = useLoad(() => api<Detail>(`/api/stations/${encodeURIComponent(c)}`), [c]);
  const series = useLoad(() => api<Series>(`/api/stations/${encodeURIComponent(c)}/series`), [c]);
  const packets = useLoad(() => api<{ packets: Array<{ id: number; ts: number; raw: string; type: string }> }>(`/api/stations/${encodeURIComponent(c)}/packets?limit=50`), [c]);
  if (detail.error) return <section class="page"><h1>{c}</h1><p class="error">{detail.error.message}</p></section>;
  const d = detail.data;
  const s = series.data;
  const wxKeys = s ? (["tempC", "humidityPct", "pressureHpa", "windSpeedKmh"] as const).filter((k) => s.wx.some((w) => w[k] !== undefined)) : [];
  return (
    <section class="page">
      <h1>{c}</h1>
      {d && (
        <dl class="facts">
          {d.lat !== undefined && <><dt>Last position</dt><dd>{d.lat.toFixed(5)}, {d.lon!.toFixed(5)}</dd></>}
          <dt>Last heard</dt><dd>{new Date(d.lastHeard).toISOString()}</dd>
          {d.source && <><dt>Heard</dt><dd>{d.source === "rf" ? `on RF by ${d.igate}` : `via ${d.source}`}</dd></>}
          {d.comment && <><dt>Comment</dt><dd>{d.comment}</dd></>}
          {d.status && <><dt>Status</dt><dd>{d.status}</dd></>}
          {d.device && <><dt>Device</dt><dd>{d.device}</dd></>}
        </dl>
      )}
      {d && d.heard.length > 0 && (
        <>
          <h2>Path heard</h2>
          <ul data-testid="heard">{d.heard.slice(0, 10).map((h) => <li>{new Date(h.ts).toISOString().slice(11, 19)} {h.path ?? "direct"} {h.igate ? `(RF, ${h.igate})` : `(${h.source})`}</li>)}</ul>
        </>
      )}
      {s && s.telemetry.points.length > 0 && (
        <Chart title="Telemetry" xs={s.telemetry.points.map((p) => p.ts)} series={s.telemetry.channels.filter((ch) => ch.id.startsWith("A")).map((ch, k) => ({ label: `${ch.name}${ch.unit ? " (" + ch.unit + ")" : ""}`, values: s.telemetry.points.map((p) => p.values[k] ?? null) }))} />
      )}
      {s && s.wx.length > 0 && <Chart title="Weather" xs={s.wx.map((w) => w.ts)} series={wxKeys.map((k) => ({ label: k, values: s.wx.map((w) => w[k] ?? null) }))} />}
      <h2>Raw packets</h2>
      <table class="table" data-testid="packets">
        <tbody>{(packets.data?.packets ?? []).map((p) => <tr><td>{new Date(p.ts).toISOString().slice(11, 19)}</td><td><code>{p.raw}</code></td><td>{p.type}</td></tr>)}</tbody>
      </table>
    </section>
  );
}
