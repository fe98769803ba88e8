/**
 * Radio settings: `KISS_PORTS` (comma-separated `tcp://HOST:PORT` or
 * `serial:PATH[@BAUD]`, or `off`) and `RADIO_CALL`. Unset KISS_PORTS means
 * "Direwolf on this machine if it is running": tcp://127.0.0.1:8001, whose
 * absence is not an error.
 */
import { formatAddress, parseAddressLoose } from "../address.ts";
import { fail, ok, type Result } from "../errors.ts";

/** Baud rates stty(1) and the Linux termios API know. */
export const BAUD_RATES = [
  50, 75, 110, 134, 150, 200, 300, 600, 1200, 1800, 2400, 4800, 9600, 19200, 38400, 57600, 115200, 230400, 460800, 500000, 576000, 921600, 1000000, 1152000,
  1500000, 2000000,
] as const;

export type KissPortConfig = { kind: "tcp"; host: string; port: number; auto?: boolean } | { kind: "serial"; path: string; baud: number };

export const DEFAULT_SERIAL_BAUD = 9600;
export const DEFAULT_KISS_PORTS: readonly KissPortConfig[] = Object.freeze([{ kind: "tcp", host: "127.0.0.1", port: 8001, auto: true }]);

const TCP = /^tcp:\/\/(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?):(\d{1,5})\/?$/;

/** Parses one entry. */
export function parseKissPort(raw: string): Result<KissPortConfig> {
  const t = raw.trim();
  const m = TCP.exec(t);
  if (m) {
    const port = Number(m[2]);
    if (port < 1 || port > 65535) return fail("config-bad-port", `"${t}": port ${port} is not 1-65535`);
    return ok({ kind: "tcp", host: m[1]!.replace(/^\[|\]$/g, ""), port });
  }
  if (t.startsWith("serial:")) {
    let path = t.slice(7);
    let baud = DEFAULT_SERIAL_BAUD;
    const at = path.lastIndexOf("@");
    if (at >= 0) {
      const b = path.slice(at + 1);
      if (!/^\d+$/.test(b) || !(BAUD_RATES as readonly number[]).includes(Number(b)))
        return fail("config-bad-port", `"${t}": baud "${b}" is not one of ${BAUD_RATES.filter((r) => r >= 1200).join(", ")}`);
      baud = Number(b);
      path = path.slice(0, at);
    }
    if (!/^\/[^\s,]*[^/\s,]$/.test(path)) return fail("config-bad-port", `"${t}": the serial device must be an absolute path such as /dev/ttyUSB0`);
    return ok({ kind: "serial", path, baud });
  }
  return fail("config-bad-port", `"${t}" is not tcp://HOST:PORT or serial:PATH[@BAUD]`);
}

/** Parses KISS_PORTS; `off` or `none` means no radio ports. */
export function parseKissPorts(raw: string): Result<KissPortConfig[]> {
  if (/^\s*(off|none)\s*$/i.test(raw)) return ok([]);
  const out: KissPortConfig[] = [];
  const seen = new Set<string>();
  for (const item of raw
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)) {
    const r = parseKissPort(item);
    if (!r.ok) return r;
    const key = kissPortId(r.value);
    if (seen.has(key)) return fail("config-bad-port", `${key} is listed twice`);
    seen.add(key);
    out.push(r.value);
  }
  if (!out.length) return fail("config-bad-port", "no ports listed (use off for none)");
  return ok(out);
}

/** The port's id as status and logs show it: `tcp://HOST:PORT`, `serial:PATH@BAUD`. */
export function kissPortId(c: KissPortConfig): string {
  return c.kind === "tcp" ? `tcp://${c.host.includes(":") ? `[${c.host}]` : c.host}:${c.port}` : `serial:${c.path}@${c.baud}`;
}

/** Parses RADIO_CALL the forgiving way people type it; returns the canonical `CALL[-SSID]`. */
export function parseRadioCall(raw: string): Result<string> {
  const r = parseAddressLoose(raw);
  if (!r.ok) return fail("config-bad-call", `"${raw.trim()}" is not a callsign AX.25 can carry (1-6 letters or digits, SSID 0-15)`);
  return ok(formatAddress(r.value));
}
