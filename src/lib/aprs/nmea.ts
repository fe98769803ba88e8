/**
 * Raw NMEA positions: `$GPRMC`/`$GNRMC` (position, speed, course) and
 * `$GPGGA`/`$GNGGA` (position, altitude). A checksum, when present, must match.
 */
import type { AprsPacket } from "./types.ts";
import { fail, KNOT_KMH, r7, round } from "./util.ts";

function coord(v: string, hemi: string, degDigits: number, what: string): number {
  const m = degDigits === 2 ? /^(\d{2})(\d{2}(?:\.\d+)?)$/.exec(v) : /^(\d{3})(\d{2}(?:\.\d+)?)$/.exec(v);
  if (!m) fail("bad_nmea", `NMEA ${what} "${v}" is not ${degDigits === 2 ? "ddmm.mmmm" : "dddmm.mmmm"}`);
  const deg = Number(m![1]);
  const min = Number(m![2]);
  if (min >= 60 || deg > (degDigits === 2 ? 90 : 180)) fail("bad_nmea", `NMEA ${what} is out of range`);
  const x = deg + min / 60;
  if (hemi === "S" || hemi === "W") return -x;
  if (hemi === "N" || hemi === "E") return x;
  return fail("bad_nmea", `NMEA ${what} hemisphere "${hemi}" is not N/S/E/W`);
}

export function parseNmea(p: AprsPacket, s: string, i: number): void {
  let sentence = s.slice(i).replace(/[\r\n\s]+$/, "");
  const star = sentence.lastIndexOf("*");
  if (star > 0 && /^\*[0-9A-Fa-f]{2}$/.test(sentence.slice(star))) {
    let sum = 0;
    for (let k = 1; k < star; k++) sum ^= sentence.charCodeAt(k);
    if (sum !== parseInt(sentence.slice(star + 1), 16)) fail("bad_nmea", "the NMEA checksum does not match");
    sentence = sentence.slice(0, star);
  }
  const f = sentence.split(",");
  const kind = f[0]!.slice(3);
  if (kind === "RMC") {
    if (f.length < 10) fail("bad_nmea", "an RMC sentence has too few fields");
    if (f[2] !== "A") fail("bad_nmea", "the RMC sentence has no valid fix (status is not A)");
    p.lat = r7(coord(f[3]!, f[4]!, 2, "latitude"));
    p.lon = r7(coord(f[5]!, f[6]!, 3, "longitude"));
    if (f[7]) {
      const kn = Number(f[7]);
      if (Number.isFinite(kn)) p.speedKmh = round(kn * KNOT_KMH, 1);
    }
    if (f[8]) {
      const c = Number(f[8]);
      if (Number.isFinite(c) && c >= 0 && c <= 360) p.course = Math.round(c);
    }
    if (f[1]) p.timestamp = f[1];
  } else if (kind === "GGA") {
    if (f.length < 10) fail("bad_nmea", "a GGA sentence has too few fields");
    if (f[6] === "0" || f[6] === "") fail("bad_nmea", "the GGA sentence has no fix (quality 0)");
    p.lat = r7(coord(f[2]!, f[3]!, 2, "latitude"));
    p.lon = r7(coord(f[4]!, f[5]!, 3, "longitude"));
    if (f[9] && f[10] === "M") {
      const alt = Number(f[9]);
      if (Number.isFinite(alt)) p.altitudeM = round(alt, 1);
    }
    if (f[1]) p.timestamp = f[1];
  } else {
    fail("unsupported_format", `NMEA sentence ${f[0]} is not decoded (RMC and GGA are)`);
  }
  p.format = "nmea";
  p.type = "position";
}
