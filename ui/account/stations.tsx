/**
 * Own stations: a weather station's push key and upload settings, transmitting
 * its weather as APRS, and living caches (a station whose beacon is a cache).
 */
import { useState } from "preact/hooks";
import { LoadState } from "../components/states.tsx";
import { api } from "../api.ts";
import { useLoad, useAction } from "../hooks.ts";
import { formatDate } from "./session.ts";
import { Section, type SectionProps } from "./ui.tsx";
import type { OwnStation } from "../../src/stations/own.ts";
import { t } from "../i18n/i18n.ts";
import { Rich } from "../i18n/rich.tsx";

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
      <p class="muted">{t("myStations.intro")}</p>
      <LoadState state={loaded} what={t("myStations.theStations")} empty={loaded.data && stations.length === 0 && t("myStations.none")} />
      {stations.length > 0 && (
        <table class="table" aria-label={t("myStations.yours")}>
          <thead>
            <tr>
              <th>{t("myStations.station")}</th>
              <th>{t("myStations.wxKey")}</th>
              <th>{t("myStations.txWx")}</th>
              <th>{t("myStations.living")}</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {stations.map((s) => (
              <tr data-call={s.call}>
                <td>
                  <a href={`/station/${encodeURIComponent(s.call)}`}>{s.call}</a>
                  {s.label && <span class="muted"> {s.label}</span>}
                  {!s.callsignHeld && <span class="warn">{t("myStations.notYours")}</span>}
                  {s.lat !== null && s.lon !== null && <div class="muted">{t("myStations.at", { lat: s.lat.toFixed(4), lon: s.lon.toFixed(4) })}</div>}
                </td>
                <td>
                  {s.wxKey ? (
                    <span>
                      {t("myStations.since", { when: formatDate(s.wxKey.createdAt) })}
                      {s.wxKey.lastUsedAt ? t("myStations.lastPush", { when: formatDate(s.wxKey.lastUsedAt) }) : t("myStations.noPush")}
                    </span>
                  ) : (
                    <span class="muted">{t("myStations.noKey")}</span>
                  )}{" "}
                  <button type="button" disabled={busy || !s.callsignHeld} onClick={() => newKey(s)}>
                    {s.wxKey ? t("myStations.newKey") : t("myStations.getKey")}
                  </button>
                </td>
                <td>
                  <label class="check">
                    <input
                      type="checkbox"
                      aria-label={t("myStations.txLabel", { call: s.call })}
                      checked={s.wxTx}
                      disabled={busy || !s.verified}
                      onChange={(e) => post("/api/wx/tx", { stationId: s.id, on: (e.target as HTMLInputElement).checked })}
                    />
                    {s.wxTxLastAt ? t("myStations.last", { when: formatDate(s.wxTxLastAt) }) : ""}
                  </label>
                </td>
                <td>
                  <label class="check">
                    <input
                      type="checkbox"
                      aria-label={t("myStations.livingLabel", { call: s.call })}
                      checked={s.livingCache}
                      disabled={busy || !s.verified}
                      onChange={(e) => post(`/api/my/stations/${s.id}/cache`, { on: (e.target as HTMLInputElement).checked })}
                    />
                    {s.livingCache ? (s.cacheName ?? s.call) : ""}
                  </label>
                </td>
                <td>
                  <button type="button" disabled={busy} onClick={() => post(`/api/my/stations/${s.id}`, { remove: true })}>
                    {t("myStations.remove")}
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
            <Rich k="myStations.keyFor" vars={{ call: issued.station.call }} parts={[(s) => <strong>{s}</strong>]} /> <code class="key">{issued.key}</code>
          </p>
          <p>
            {t("myStations.wu")} <code class="key">{issued.upload.wunderground}</code>
          </p>
          <p>
            <Rich
              k="myStations.ecowitt"
              vars={{ server: issued.upload.ecowitt.server, port: issued.upload.ecowitt.port }}
              parts={[(s) => <code>{s}</code>, (s) => <code>{s}</code>]}
            />{" "}
            <code class="key">{issued.upload.ecowitt.path}</code>
          </p>
          <button type="button" onClick={() => setIssued(null)}>
            {t("myStations.done")}
          </button>
        </div>
      )}
      {account.callsigns.length === 0 ? (
        <p class="muted">{t("myStations.callFirst")}</p>
      ) : (
        <form class="inline" onSubmit={add}>
          <label for="station-call">{t("myStations.add")}</label>
          <input
            id="station-call"
            aria-label={t("myStations.call")}
            placeholder="N0CALL-13"
            size={12}
            value={call}
            onInput={(e) => setCall((e.target as HTMLInputElement).value)}
          />
          <input
            aria-label={t("myStations.label")}
            placeholder={t("myStations.labelHint")}
            value={label}
            onInput={(e) => setLabel((e.target as HTMLInputElement).value)}
          />
          <input
            aria-label={t("myStations.lat")}
            placeholder={t("myStations.latHint")}
            size={10}
            inputMode="decimal"
            value={lat}
            onInput={(e) => setLat((e.target as HTMLInputElement).value)}
          />
          <input
            aria-label={t("myStations.lon")}
            placeholder={t("myStations.lonHint")}
            size={10}
            inputMode="decimal"
            value={lon}
            onInput={(e) => setLon((e.target as HTMLInputElement).value)}
          />
          <button type="submit" disabled={busy || !call.trim()}>
            {t("myStations.addButton")}
          </button>
        </form>
      )}
      {errorView}
    </Section>
  );
}
