/**
 * DNS TXT records over DNS-over-HTTPS (DOH_URL), for the 44net onboarding
 * binding and the registry's DNS anchor. The resolver's AD flag (it validated
 * the answer with DNSSEC) comes back with the records.
 *
 * Two forms, tried in this order:
 *   wire  RFC 8484: GET DOH_URL?dns=<base64url of the query>, application/dns-message
 *         (dns-packet encodes and decodes); the query sets RD, AD and the DO bit
 *   json  the JSON API many resolvers offer: GET DOH_URL?name=&type=TXT&do=1,
 *         application/dns-json ({Status, AD, Answer: [{type: 16, data}]})
 * A resolver that does not answer the wire form with a DNS message (4xx, or
 * another content type) is asked in the JSON form.
 */
import dnsPacket from "dns-packet";
import type { Core } from "../core/core.ts";
import { DialError, fedFetch } from "./dial.ts";

export interface TxtAnswer {
  /** each TXT record's character-strings joined */
  records: string[];
  /** the resolver validated the answer with DNSSEC (the AD flag) */
  dnssec: boolean;
  /** NOERROR, NXDOMAIN, SERVFAIL, ... */
  rcode: string;
  form: "wire" | "json";
}

const RCODES = ["NOERROR", "FORMERR", "SERVFAIL", "NXDOMAIN", "NOTIMP", "REFUSED"];

export async function resolveTxt(gw: Core, name: string): Promise<TxtAnswer> {
  const wire = await resolveWire(gw, name);
  return wire ?? resolveJson(gw, name);
}

/** The wire form; null when the resolver does not speak it. */
async function resolveWire(gw: Core, name: string): Promise<TxtAnswer | null> {
  const query = dnsPacket.encode({
    type: "query",
    id: 0, // RFC 8484: 0 keeps GET answers cacheable
    flags: dnsPacket.RECURSION_DESIRED | dnsPacket.AUTHENTIC_DATA,
    questions: [{ type: "TXT", name }],
    additionals: [{ type: "OPT", name: ".", udpPayloadSize: 4096, flags: dnsPacket.DNSSEC_OK } as dnsPacket.Answer],
  });
  const url = `${gw.config.dohUrl}${gw.config.dohUrl.includes("?") ? "&" : "?"}dns=${Buffer.from(query).toString("base64url")}`;
  const r = await fedFetch(gw, url, { headers: { accept: "application/dns-message" }, timeoutMs: 10_000, maxBytes: 65_535, rule: "configured" });
  const type = r.headers.get("content-type")?.split(";")[0]?.trim();
  if (type !== "application/dns-message") {
    if (r.status >= 400 && r.status < 500) return null;
    if (r.status === 200) return null;
    throw new DialError(`http_${r.status}`, `the DNS resolver answered ${r.status}`);
  }
  let msg: dnsPacket.DecodedPacket;
  try {
    msg = dnsPacket.decode(Buffer.from(r.bytes));
  } catch (e) {
    throw new DialError("bad_answer", `the DNS resolver's answer does not decode: ${(e as Error).message}`);
  }
  const flags = (msg as { flags?: number }).flags ?? 0;
  const rcode = RCODES[flags & 0xf] ?? `RCODE${flags & 0xf}`;
  const records: string[] = [];
  for (const a of msg.answers ?? []) {
    if (a.type !== "TXT") continue;
    const data = (a as { data: Buffer | Buffer[] | string }).data;
    const parts = Array.isArray(data) ? data : [data];
    records.push(parts.map((p) => (typeof p === "string" ? p : Buffer.from(p).toString("utf8"))).join(""));
  }
  return { records, dnssec: (flags & dnsPacket.AUTHENTIC_DATA) !== 0, rcode, form: "wire" };
}

async function resolveJson(gw: Core, name: string): Promise<TxtAnswer> {
  const url = `${gw.config.dohUrl}${gw.config.dohUrl.includes("?") ? "&" : "?"}name=${encodeURIComponent(name)}&type=TXT&do=1`;
  const r = await fedFetch(gw, url, { headers: { accept: "application/dns-json" }, timeoutMs: 10_000, maxBytes: 65_535, rule: "configured" });
  if (r.status !== 200) throw new DialError(`http_${r.status}`, `the DNS resolver answered ${r.status} in both the wire and the JSON form`);
  let body: { Status?: unknown; AD?: unknown; Answer?: unknown };
  try {
    body = JSON.parse(new TextDecoder().decode(r.bytes));
  } catch {
    throw new DialError("bad_answer", "the DNS resolver's JSON answer does not parse");
  }
  const status = typeof body.Status === "number" ? body.Status : -1;
  const records: string[] = [];
  for (const a of Array.isArray(body.Answer) ? body.Answer : []) {
    const x = a as { type?: unknown; data?: unknown };
    if (x?.type === 16 && typeof x.data === "string") records.push(jsonTxtData(x.data));
  }
  return { records, dnssec: body.AD === true, rcode: RCODES[status] ?? `RCODE${status}`, form: "json" };
}

/** TXT data in the JSON form: one or more quoted character-strings (`"a" "b"`), or bare text. */
export function jsonTxtData(data: string): string {
  const t = data.trim();
  if (!t.startsWith('"')) return t;
  let out = "";
  let i = 0;
  while (i < t.length) {
    while (t[i] === " ") i++;
    if (t[i] !== '"') break;
    i++;
    while (i < t.length && t[i] !== '"') {
      if (t[i] === "\\" && i + 1 < t.length) {
        const d = /^\d{3}/.exec(t.slice(i + 1));
        if (d) {
          out += String.fromCharCode(Number(d[0]));
          i += 4;
          continue;
        }
        i++;
      }
      out += t[i++];
    }
    i++;
  }
  return out;
}

/**
 * Parses `k=v; k=v` TXT text (whitespace around `;` and `=` allowed); a key
 * may repeat (`key=` for several keys). Null when it is not that shape.
 */
export function parseTxtFields(text: string): Map<string, string[]> | null {
  const out = new Map<string, string[]>();
  for (const part of text.split(";")) {
    const p = part.trim();
    if (!p) continue;
    const eq = p.indexOf("=");
    if (eq < 1) return null;
    const k = p.slice(0, eq).trim().toLowerCase();
    const v = p.slice(eq + 1).trim();
    out.set(k, [...(out.get(k) ?? []), v]);
  }
  return out;
}
