/**
 * Runs Debian Direwolf's `decode_aprs` (an independent APRS decoder, in C) on
 * TNC2 lines and parses its human-readable report back into fields, so tests
 * can compare our decoder with it field by field.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface DwReport {
  /** the line as fed to decode_aprs */
  input: string;
  kind: string;
  name?: string;
  micE?: string;
  mfr?: string;
  lat?: number;
  lon?: number;
  speedMph?: number;
  course?: number;
  altFt?: number;
  freqMhz?: number;
  weather?: Record<string, number>;
  windMph?: number;
  telemetry?: Array<{ name: string; value: number; unit: string }>;
  telemetrySeq?: number;
  comment?: string;
  rangeMiles?: number;
  phg?: { powerW: number; heightFt: number; gainDbi: number };
  msgNumber?: string;
  addressee?: string;
  /** a status report's grid square */
  locator?: string;
}

const KINDS = [
  "Weather Report with Object",
  "Positionless Weather Report",
  "Weather Report",
  "Position with time",
  "Position",
  "Killed Object",
  "Object",
  "Killed Item",
  "Item",
  "MIC-E",
  "APRS Message",
  "ACK message",
  "REJ message",
  "Telemetry Parameter Name Message",
  "Telemetry Unit/Label Message",
  "Telemetry Equation Coefficents Message",
  "Telemetry Bit Sense/Project Name Message",
  "Telemetry",
  "Status Report",
  "Raw GPS data",
  "Third Party Header",
  "Ultimeter",
];

/** Lines in decode_aprs's notation (<0xNN> for unprintable bytes), reports in the same order. */
export function runDecodeAprs(lines: string[]): DwReport[] {
  const dir = mkdtempSync(join(tmpdir(), "dw-"));
  const file = join(dir, "in.txt");
  writeFileSync(file, lines.join("\n") + "\n");
  const r = Bun.spawnSync(["decode_aprs", file], { cwd: dir, stdout: "pipe", stderr: "pipe" });
  const out = r.stdout.toString().replace(/\x1b\[[0-9;]*[A-Za-z]/g, "");
  const rows = out.split("\n");
  const reports: DwReport[] = [];
  let at = 0;
  for (const input of lines) {
    while (at < rows.length && rows[at] !== input) at++;
    if (at >= rows.length) throw new Error(`decode_aprs output lost track at: ${input}`);
    at++;
    const block: string[] = [];
    while (at < rows.length && !lines.includes(rows[at]!) && !(rows[at] === "" && rows[at + 1] !== undefined && lines.includes(rows[at + 1]!)))
      block.push(rows[at++]!);
    reports.push(parseBlock(input, block));
  }
  return reports;
}

function parseBlock(input: string, block: string[]): DwReport {
  const headIdx = block.findIndex((l) => KINDS.some((k) => l.startsWith(k)));
  if (headIdx < 0) throw new Error(`decode_aprs gave no report for ${input}:\n${block.join("\n")}`);
  const head = block[headIdx]!;
  const kind = KINDS.find((k) => head.startsWith(k))!;
  const rep: DwReport = { input, kind };
  const name = /^[^"]*?, "([^"]*)"/.exec(head);
  if (name && (kind.includes("Object") || kind.includes("Item"))) rep.name = name[1];
  const msg = /^(?:APRS Message|ACK message|REJ message) (\S*) ?for "([^"]*)"/.exec(head);
  if (msg) {
    rep.msgNumber = msg[1] || undefined;
    rep.addressee = msg[2];
  }
  if (kind === "MIC-E") {
    const parts = head.split(", ");
    rep.micE = parts[parts.length - 1];
    rep.mfr = parts[parts.length - 2];
  }
  const rng = /, range=([\d.]+)/.exec(head);
  if (rng) rep.rangeMiles = Number(rng[1]);
  const phg = /, (\d+) W height=(\d+) (\d+)dBi/.exec(head);
  if (phg) rep.phg = { powerW: Number(phg[1]), heightFt: Number(phg[2]), gainDbi: Number(phg[3]) };
  const rest = block.slice(headIdx + 1);
  let k = 0;
  const grid = /^Grid square = (\S+), ([NS]) (\d+) ([\d.]+), ([EW]) (\d+) ([\d.]+)/.exec(rest[0] ?? "");
  if (grid) {
    rep.locator = grid[1];
    rep.lat = (Number(grid[3]) + Number(grid[4]) / 60) * (grid[2] === "S" ? -1 : 1);
    rep.lon = (Number(grid[6]) + Number(grid[7]) / 60) * (grid[5] === "W" ? -1 : 1);
    rest.shift();
  }
  const pos = /^([NS]) (\d+) ([\d.]+), ([EW]) (\d+) ([\d.]+)(.*)$/.exec(rest[0] ?? "") ?? /^(?:, )?(\d+) MPH.*$/.exec(rest[0] ?? "");
  if (pos && pos.length > 3) {
    rep.lat = (Number(pos[2]) + Number(pos[3]) / 60) * (pos[1] === "S" ? -1 : 1);
    rep.lon = (Number(pos[5]) + Number(pos[6]) / 60) * (pos[4] === "W" ? -1 : 1);
    const tail = pos[7]!;
    const spd = /, (\d+) MPH/.exec(tail);
    if (spd) rep.speedMph = Number(spd[1]);
    const crs = /, course (\d+)/.exec(tail);
    if (crs) rep.course = Number(crs[1]);
    const alt = /, alt (-?\d+) ft/.exec(tail);
    if (alt) rep.altFt = Number(alt[1]);
    const f = /, ([\d.]+) MHz/.exec(tail);
    if (f) rep.freqMhz = Number(f[1]);
    k = 1;
  }
  for (; k < rest.length; k++) {
    const l = rest[k]!;
    if (/^(wind [\d.]+ mph|, ")/.test(l) || (kind.includes("Weather") && l.includes('"'))) {
      rep.weather = parseWeather(l);
      const w = /^wind ([\d.]+) mph/.exec(l);
      if (w) rep.windMph = Number(w[1]);
      continue;
    }
    if (/Seq=\d+/.test(l)) {
      const body = l.replace(/^[^:]*: (?=Seq=)/, "");
      const items = body.split(", ");
      rep.telemetrySeq = Number(/Seq=(\d+)/.exec(items.shift()!)![1]);
      rep.telemetry = [];
      for (const it of items) {
        const m = /^([^=]+)=(-?[\d.]+)(?: (.*))?$/.exec(it);
        if (m && !/^D\d$/.test(m[1]!) && rep.telemetry.length < 5) rep.telemetry.push({ name: m[1]!, value: Number(m[2]), unit: m[3] ?? "" });
      }
      continue;
    }
    if (rep.comment === undefined) rep.comment = l.replaceAll("<0x20>", " ").trim();
  }
  return rep;
}

function parseWeather(l: string): Record<string, number> {
  const w: Record<string, number> = {};
  const grab = (re: RegExp, key: string) => {
    const m = re.exec(l);
    if (m) w[key] = Number(m[1]);
  };
  grab(/direction (\d+)/, "dir");
  grab(/gust (\d+)/, "gustMph");
  grab(/temperature (-?[\d.]+)/, "tempF");
  grab(/rain ([\d.]+) in last hour/, "rain1hIn");
  grab(/rain ([\d.]+) in last 24 hours/, "rain24hIn");
  grab(/rain ([\d.]+) since midnight/, "rainMidIn");
  grab(/humidity (\d+)/, "humidity");
  grab(/barometer ([\d.]+)/, "inHg");
  grab(/(\d+) watts\/m\^2/, "lum");
  grab(/([\d.]+) snow in 24 hours/, "snowIn");
  return w;
}

/** decode_aprs notation to the bytes it stands for. */
export const unescapeDw = (l: string) => l.replace(/<0x([0-9a-fA-F]{2})>/g, (_, h) => String.fromCharCode(parseInt(h, 16)));
