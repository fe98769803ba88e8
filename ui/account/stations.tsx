/**
 * Own stations: a weather station's push key and upload settings, transmitting
 * its weather as APRS, and living caches (a station whose beacon is a cache).
 */
import { useState } from "preact/hooks";
import { LoadState } from "../states.tsx";
import { api } from "../api.ts";
import { useLoad } from "../hooks.ts";
import { formatDate } from "./session.ts";
import { Section, useAction, type SectionProps } from "./ui.tsx";
import type { OwnStation } from "../../src/stations/own.ts";
import { t } from "../i18n/i18n.ts";

interface IssuedKey {
  key: string;
  station: OwnStation;
  upload: { wunderground: string; ecowitt: { server: string; port: number; path: string; protocol: string } };
}

const loadStations = () => api<{ stations: OwnStation[] }>("/api/my/stations").then((r) => r.stations);

export function StationsSection({ account }: SectionProps) {
  const [version, setVersion] = useState(0);
  const loaded = useLoad(loadStations, [version]);
  const { run, busy, errorView } = useAction();
  const base = account.call ? account.call.split("-")[0]! : "";
  const [call, setCall] = useState(base ? `${base}-13` : "");
  const [label, setLabel] = useState("");
  const [lat, setLat] = useState("");
  const [lon, setLon] = useState("");
  const [issued, setIssued] = useState<IssuedKey | null>(null);
  const reload = () => setVersion(version + 1);
  const stations = loaded.data ?? [];

  const add = (e: Event) => {
    e.preventDefault();
    run(async () => {
      const body: Record<string, unknown> = { call: call.trim() };
      if (label.trim()) body.label = label.trim();
      if (lat.trim() || lon.trim()) Object.assign(body, { lat: Number(lat), lon: Number(lon) });
      await api("/api/my/stations", { method: "POST", json: body });
      setLabel("");
      setLat("");
      setLon("");
      reload();
    });
  };
  const post = (path: string, json: unknown) => run(async () => (await api(path, { method: "POST", json }), reload()));
  const newKey = (s: OwnStation) =>
    run(async () => {
      setIssued(await api<IssuedKey>(`/api/my/stations/${s.id}/wx-key`, { method: "POST", json: {} }));
      reload();
    });

  return (
    <Section title={t("account.stations")} id="stations">
      <p class="muted">
        Stations you run under your callsigns: a weather station that pushes its readings here (Weather Underground or Ecowitt upload), a tracker whose beacon
        is a living cache. Transmitting weather and living caches need the callsign verified.
      </p>
      <LoadState state={loaded} what="your stations" empty={loaded.data && stations.length === 0 && "None yet."} />
      {stations.length > 0 && (
        <table class="table" aria-label="your stations">
          <thead>
            <tr>
              <th>Station</th>
              <th>Weather key</th>
              <th>Transmit weather</th>
              <th>Living cache</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {stations.map((s) => (
              <tr data-call={s.call}>
                <td>
                  <a href={`/station/${encodeURIComponent(s.call)}`}>{s.call}</a>
                  {s.label && <span class="muted"> {s.label}</span>}
                  {!s.callsignHeld && <span class="warn"> callsign no longer yours</span>}
                  {s.lat !== null && s.lon !== null && (
                    <div class="muted">
                      at {s.lat.toFixed(4)}, {s.lon.toFixed(4)}
                    </div>
                  )}
                </td>
                <td>
                  {s.wxKey ? (
                    <span>
                      since {formatDate(s.wxKey.createdAt)}
                      {s.wxKey.lastUsedAt ? `, last push ${formatDate(s.wxKey.lastUsedAt)}` : ", no push yet"}
                    </span>
                  ) : (
                    <span class="muted">none</span>
                  )}{" "}
                  <button type="button" disabled={busy || !s.callsignHeld} onClick={() => newKey(s)}>
                    {s.wxKey ? "New key" : "Get a key"}
                  </button>
                </td>
                <td>
                  <label class="check">
                    <input
                      type="checkbox"
                      aria-label={`Transmit ${s.call}'s weather as APRS`}
                      checked={s.wxTx}
                      disabled={busy || !s.verified}
                      onChange={(e) => post("/api/wx/tx", { stationId: s.id, on: (e.target as HTMLInputElement).checked })}
                    />
                    {s.wxTxLastAt ? `last ${formatDate(s.wxTxLastAt)}` : ""}
                  </label>
                </td>
                <td>
                  <label class="check">
                    <input
                      type="checkbox"
                      aria-label={`${s.call} is a living cache`}
                      checked={s.livingCache}
                      disabled={busy || !s.verified}
                      onChange={(e) => post(`/api/my/stations/${s.id}/cache`, { on: (e.target as HTMLInputElement).checked })}
                    />
                    {s.livingCache ? (s.cacheName ?? s.call) : ""}
                  </label>
                </td>
                <td>
                  <button type="button" disabled={busy} onClick={() => post(`/api/my/stations/${s.id}`, { remove: true })}>
                    Remove
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {issued && (
        <div class="notice" role="status" data-testid="wx-key">
          <p>
            Weather key for <strong>{issued.station.call}</strong>, shown this once: <code class="key">{issued.key}</code>
          </p>
          <p>
            Weather Underground upload (weewx, Cumulus, a console's custom server): <code class="key">{issued.upload.wunderground}</code>
          </p>
          <p>
            Ecowitt "Customized", protocol Ecowitt: server <code>{issued.upload.ecowitt.server}</code>, port <code>{issued.upload.ecowitt.port}</code>, path{" "}
            <code class="key">{issued.upload.ecowitt.path}</code>
          </p>
          <button type="button" onClick={() => setIssued(null)}>
            Done
          </button>
        </div>
      )}
      {account.callsigns.length === 0 ? (
        <p class="muted">Add a callsign first: a station belongs to the account holding its callsign.</p>
      ) : (
        <form class="inline" onSubmit={add}>
          <label for="station-call">Add a station</label>
          <input
            id="station-call"
            aria-label="Station callsign"
            placeholder="N0CALL-13"
            size={12}
            value={call}
            onInput={(e) => setCall((e.target as HTMLInputElement).value)}
          />
          <input aria-label="Station label" placeholder="label, e.g. roof" value={label} onInput={(e) => setLabel((e.target as HTMLInputElement).value)} />
          <input
            aria-label="Latitude"
            placeholder="lat (optional)"
            size={10}
            inputMode="decimal"
            value={lat}
            onInput={(e) => setLat((e.target as HTMLInputElement).value)}
          />
          <input
            aria-label="Longitude"
            placeholder="lon (optional)"
            size={10}
            inputMode="decimal"
            value={lon}
            onInput={(e) => setLon((e.target as HTMLInputElement).value)}
          />
          <button type="submit" disabled={busy || !call.trim()}>
            Add station
          </button>
        </form>
      )}
      {errorView}
    </Section>
  );
}
