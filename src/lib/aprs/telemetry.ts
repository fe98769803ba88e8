/**
 * Telemetry: `T#sss,a1,a2,a3,a4,a5,bbbbbbbb` reports, the PARM./UNIT./EQNS./
 * BITS. messages that describe them, and applying those definitions to raw
 * values (the registry keeps raw values and applies the latest definitions
 * when it serves a series).
 */
import type { AprsPacket, Telemetry, TelemetryDefinitions } from "./types.ts";
import { cleanText, fail } from "./util.ts";

const NUM = /^-?\d*\.?\d+$/;

/** `T#...` at s[i] (i points at the T). */
export function parseTelemetryReport(p: AprsPacket, s: string, i: number): void {
  if (s[i + 1] !== "#") fail("bad_telemetry", "telemetry must start with T#");
  const parts = s.slice(i + 2).split(",");
  if (parts.length < 2) fail("bad_telemetry", "telemetry needs a sequence number and at least one value");
  let seqText = parts[0]!.trim();
  if (seqText.startsWith("MIC")) seqText = seqText.slice(3);
  const tel: Telemetry = { analog: [] };
  if (seqText !== "") {
    if (!/^\d{1,5}$/.test(seqText)) fail("bad_telemetry", `telemetry sequence "${parts[0]}" is not a number`);
    tel.seq = Number(seqText);
  }
  // MIC form: "T#MIC199,..." has the first value glued to MIC.
  let k = 1;
  for (; k < parts.length && k <= 5; k++) {
    const v = parts[k]!.trim();
    if (v === "") {
      tel.analog.push(NaN);
      continue;
    }
    if (!NUM.test(v)) {
      if (k === 5 || k === parts.length - 1) break;
      fail("bad_telemetry", `telemetry value A${k} "${v}" is not a number`);
    }
    tel.analog.push(Number(v));
  }
  while (tel.analog.length && Number.isNaN(tel.analog[tel.analog.length - 1]!)) tel.analog.pop();
  if (tel.analog.length === 0) fail("bad_telemetry", "telemetry carries no values");
  // Unknown (empty) channels in the middle stay as null when serialised.
  if (k < parts.length) {
    const rest = parts.slice(k).join(",");
    const m = /^([01]{1,8})/.exec(rest);
    if (m) {
      tel.bits = m[1]!.padEnd(8, "0");
      const c = cleanText(rest.slice(m[1]!.length));
      if (c !== undefined) p.comment = c;
    } else {
      const c = cleanText(rest);
      if (c !== undefined) p.comment = c;
    }
  }
  p.type = "telemetry";
  p.telemetry = tel;
}

/** The text of a PARM./UNIT./EQNS./BITS. message (after the 5-byte keyword). */
export function parseTelemetryDefinitions(kind: string, text: string): TelemetryDefinitions {
  const body = text.replace(/[\r\n]+$/, "");
  switch (kind) {
    case "PARM.":
      return {
        parm: body
          .split(",")
          .map((x) => x.trim())
          .slice(0, 13),
      };
    case "UNIT.":
      return {
        unit: body
          .split(",")
          .map((x) => x.trim())
          .slice(0, 13),
      };
    case "EQNS.": {
      const nums = body.split(",").map((x) => x.trim());
      const eqns: number[][] = [];
      for (let ch = 0; ch < 5; ch++) {
        const tri = nums.slice(ch * 3, ch * 3 + 3);
        if (tri.length === 0) break;
        const vals = tri.map((x) => (x === "" ? 0 : Number(x)));
        if (vals.some((v) => !Number.isFinite(v))) fail("bad_telemetry", `EQNS coefficient for channel ${ch + 1} is not a number`);
        while (vals.length < 3) vals.push(0);
        eqns.push(vals);
      }
      if (eqns.length === 0) fail("bad_telemetry", "EQNS carries no coefficients");
      return { eqns };
    }
    case "BITS.": {
      const m = /^([01]{1,8}),?(.*)$/.exec(body);
      if (!m) fail("bad_telemetry", "BITS must start with up to 8 binary digits");
      return { bits: { sense: m![1]!.padEnd(8, "1"), project: m![2]!.trim() } };
    }
  }
  return fail("bad_telemetry", `unknown telemetry definition ${kind}`);
}

/** Merges newly heard definitions into the ones known so far. */
export function mergeDefinitions(old: TelemetryDefinitions | null, add: TelemetryDefinitions): TelemetryDefinitions {
  return { ...(old ?? {}), ...add };
}

export interface TelemetryChannel {
  /** "A1".."A5", "B1".."B8" */
  id: string;
  name: string;
  unit: string;
  value: number | null;
}

/**
 * Applies definitions to one raw reading: analog values through EQNS
 * (a*x^2 + b*x + c), digital bits through the BITS sense, names and units from
 * PARM and UNIT.
 */
export function applyTelemetry(t: Telemetry, defs: TelemetryDefinitions | null): TelemetryChannel[] {
  const out: TelemetryChannel[] = [];
  t.analog.forEach((raw, k) => {
    const e = defs?.eqns?.[k];
    const v = raw === null || Number.isNaN(raw) ? null : e ? e[0]! * raw * raw + e[1]! * raw + e[2]! : raw;
    out.push({ id: `A${k + 1}`, name: defs?.parm?.[k] || `A${k + 1}`, unit: defs?.unit?.[k] ?? "", value: v === null ? null : Math.round(v * 1e6) / 1e6 });
  });
  if (t.bits) {
    for (let b = 0; b < 8; b++) {
      const raw = t.bits[b] === "1" ? 1 : 0;
      const sense = defs?.bits?.sense?.[b];
      const on = sense === undefined ? raw : raw === Number(sense) ? 1 : 0;
      out.push({ id: `B${b + 1}`, name: defs?.parm?.[5 + b] || `B${b + 1}`, unit: defs?.unit?.[5 + b] ?? "", value: on });
    }
  }
  return out;
}
