/**
 * A compass arrow and the distance to a cache, from the device's position
 * (Geolocation) and heading (DeviceOrientation) where the browser allows it.
 * Works offline: nothing here talks to a server.
 */
import { useEffect, useState } from "preact/hooks";
import { formatDistance } from "../components/units.ts";
import { t } from "../i18n/i18n.ts";

const R = 6_371_008.8;
const rad = (d: number) => (d * Math.PI) / 180;

/** Great-circle distance (m) and initial bearing (degrees from north) from a to b. */
export function distanceBearing(a: { lat: number; lon: number }, b: { lat: number; lon: number }): { m: number; deg: number } {
  const dLat = rad(b.lat - a.lat);
  const dLon = rad(b.lon - a.lon);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.lat)) * Math.cos(rad(b.lat)) * Math.sin(dLon / 2) ** 2;
  const m = 2 * R * Math.asin(Math.min(1, Math.sqrt(h)));
  const y = Math.sin(dLon) * Math.cos(rad(b.lat));
  const x = Math.cos(rad(a.lat)) * Math.sin(rad(b.lat)) - Math.sin(rad(a.lat)) * Math.cos(rad(b.lat)) * Math.cos(dLon);
  const deg = ((Math.atan2(y, x) * 180) / Math.PI + 360) % 360;
  return { m, deg };
}

const POINTS = ["N", "NE", "E", "SE", "S", "SW", "W", "NW"];
/** The compass point of a bearing, in the reader's letters (N, NO, O in German). */
export const compassPoint = (deg: number) => {
  const p = POINTS[Math.round(deg / 45) % 8]!;
  return t(`offline.point.${p}`, { defaultValue: p });
};

type OrientationEvent = DeviceOrientationEvent & { webkitCompassHeading?: number };

export function Compass({ lat, lon }: { lat: number; lon: number }) {
  const [on, setOn] = useState(false);
  const [pos, setPos] = useState<{ lat: number; lon: number; accuracy: number } | null>(null);
  const [heading, setHeading] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (!on) return;
    if (!("geolocation" in navigator)) {
      setError(t("offline.noGeolocation"));
      return;
    }
    const watch = navigator.geolocation.watchPosition(
      (p) => {
        setError(null);
        setPos({ lat: p.coords.latitude, lon: p.coords.longitude, accuracy: p.coords.accuracy });
        // moving: the direction of travel is a heading too
        if (p.coords.heading !== null && !Number.isNaN(p.coords.heading) && (p.coords.speed ?? 0) > 0.5) setHeading(p.coords.heading);
      },
      (e) => setError(e.code === e.PERMISSION_DENIED ? t("offline.locationDenied") : t("offline.noPosition")),
      { enableHighAccuracy: true, maximumAge: 5_000 },
    );
    const orient = (e: Event) => {
      const o = e as OrientationEvent;
      if (typeof o.webkitCompassHeading === "number") setHeading(o.webkitCompassHeading);
      else if (o.absolute && o.alpha !== null) setHeading((360 - o.alpha) % 360);
    };
    addEventListener("deviceorientationabsolute", orient);
    addEventListener("deviceorientation", orient);
    return () => {
      navigator.geolocation.clearWatch(watch);
      removeEventListener("deviceorientationabsolute", orient);
      removeEventListener("deviceorientation", orient);
    };
  }, [on]);
  const start = async () => {
    // iOS asks for motion sensors only from a tap
    const D = (globalThis as { DeviceOrientationEvent?: { requestPermission?: () => Promise<string> } }).DeviceOrientationEvent;
    if (D?.requestPermission) await D.requestPermission().catch(() => "denied");
    setOn(true);
  };
  if (!on) {
    return (
      <p class="compass">
        <button type="button" onClick={start}>
          {t("offline.showCompass")}
        </button>
      </p>
    );
  }
  const db = pos ? distanceBearing(pos, { lat, lon }) : null;
  const turn = db ? (heading === null ? db.deg : (db.deg - heading + 360) % 360) : 0;
  return (
    <div class="compass" data-testid="compass">
      {db ? (
        <>
          <span class="compass-arrow" aria-hidden="true" style={{ transform: `rotate(${turn.toFixed(0)}deg)` }}>
            ↑
          </span>
          <span>
            <b data-testid="compass-distance">{formatDistance(db.m, undefined, true)}</b>{" "}
            <span data-testid="compass-bearing">
              {compassPoint(db.deg)} ({Math.round(db.deg)}°)
            </span>
            <br />
            <span class="muted">
              {heading === null ? t("offline.northUp") : t("offline.aheadUp")} · ±{formatDistance(pos!.accuracy)}
            </span>
          </span>
        </>
      ) : (
        <span class="muted">{error ?? t("offline.waitingPosition")}</span>
      )}
    </div>
  );
}
