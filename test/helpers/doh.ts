/**
 * A DNS-over-HTTPS responder on loopback for tests: TXT records by name, each
 * name with or without DNSSEC validation (the AD flag). It speaks the RFC 8484
 * wire form (GET ?dns= and POST, through dns-packet) and the JSON form
 * (?name=&type=), or only one of them.
 */
import dnsPacket from "dns-packet";

export interface DohZone {
  [name: string]: { txt: string[]; ad: boolean };
}

export interface DohServer {
  url: string;
  zone: DohZone;
  /** requests seen, by form */
  seen: { wire: number; json: number };
  stop(): void;
}

/** Splits text into DNS character-strings of at most 255 bytes. */
function strings(text: string): Buffer[] {
  const b = Buffer.from(text, "utf8");
  const out: Buffer[] = [];
  for (let i = 0; i < b.length; i += 255) out.push(b.subarray(i, i + 255));
  return out.length ? out : [Buffer.alloc(0)];
}

export function startDoh(zone: DohZone, forms: "both" | "wire" | "json" = "both"): DohServer {
  const seen = { wire: 0, json: 0 };
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const u = new URL(req.url);
      let query: Buffer | null = null;
      if (req.method === "GET" && u.searchParams.has("dns")) query = Buffer.from(u.searchParams.get("dns")!, "base64url");
      if (req.method === "POST" && req.headers.get("content-type") === "application/dns-message") query = Buffer.from(await req.arrayBuffer());
      if (query) {
        if (forms === "json") return new Response("wire form not served here", { status: 415 });
        seen.wire++;
        const q = dnsPacket.decode(query);
        const question = q.questions![0]!;
        const rec = zone[question.name.toLowerCase()];
        const answers =
          rec && question.type === "TXT"
            ? rec.txt.map((t) => ({ type: "TXT" as const, name: question.name, ttl: 300, class: "IN" as const, data: strings(t) }))
            : [];
        const flags = dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | (rec?.ad ? dnsPacket.AUTHENTIC_DATA : 0) | (rec ? 0 : 3); // 3 = NXDOMAIN
        const bytes = dnsPacket.encode({ type: "response", id: q.id, flags, questions: q.questions, answers });
        return new Response(new Uint8Array(bytes), { headers: { "content-type": "application/dns-message" } });
      }
      if (u.searchParams.has("name")) {
        if (forms === "wire") return new Response("JSON form not served here", { status: 400 });
        seen.json++;
        const name = u.searchParams.get("name")!.toLowerCase().replace(/\.$/, "");
        const rec = zone[name];
        const body = {
          Status: rec ? 0 : 3,
          AD: !!rec?.ad,
          Question: [{ name, type: 16 }],
          Answer: (rec?.txt ?? []).map((t) => ({
            name,
            type: 16,
            TTL: 300,
            data: strings(t)
              .map((s) => `"${s.toString("utf8").replaceAll('"', '\\"')}"`)
              .join(" "),
          })),
        };
        return Response.json(body, { headers: { "content-type": "application/dns-json" } });
      }
      return new Response("bad request", { status: 400 });
    },
  });
  return { url: `http://127.0.0.1:${server.port}/dns-query`, zone, seen, stop: () => server.stop(true) };
}
