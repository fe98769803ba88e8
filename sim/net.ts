/**
 * The simulated network: every federation request a simulated gateway makes
 * (src/fed/dial.ts fedFetch, through the gateway's fedTransport) is handed to
 * the target gateway's own HTTP app (`app.handle`), or fails as the link
 * says: the target offline (churn), on the other side of a partition, a lost
 * packet, an answer slower than the deadline, or a 44net host a gateway
 * without 44net access cannot resolve. Latency, loss and bandwidth are drawn
 * per link from the seed; nothing here waits on a real timer.
 *
 * A radio island's gateways reach each other and their bridge over 1200-baud
 * radio (HTTP over AX.25 IP) and nothing else; no one else reaches them. The
 * island's channel is shared: its requests' air time adds up within a round
 * (one clock reading), and past a round's worth the channel is busy.
 */
import type { FedTransport, Gateway } from "../src/hosts/gateway.ts";
import type { Rng } from "./prng.ts";

export type LinkKind = "internet" | "44net" | "rf1200";

export interface Link {
  kind: LinkKind;
  /** round trip, seconds */
  rtt: number;
  /** probability a request is lost */
  loss: number;
  /** bytes per second */
  bandwidth: number;
}

export interface SimNode {
  instance: string;
  /** replaced when the gateway restarts (a key rotation) */
  gw: Gateway;
  /** the https host, e.g. g007.sim */
  host: string;
  /** its 44net host, when it has one (e.g. k7a.ampr.org) */
  amprHost: string | null;
  /** can resolve and reach 44net hosts */
  on44net: boolean;
  online: boolean;
  /** partition side; requests cross sides only when both are 0 */
  side: number;
  /** the radio island it is on, or null */
  island: number | null;
  /** the radio island it bridges to the rest, or null */
  bridges: number | null;
}

/** Rewrites what a gateway serves (the malicious gateway's sync pages). */
export type Tamper = (path: string, from: SimNode, body: Uint8Array, contentType: string | null) => Uint8Array;

export interface NetStats {
  requests: number;
  failed: number;
  lost: number;
  timedOut: number;
  unresolvable: number;
  /** bytes of answers delivered */
  bytes: number;
  /** simulated seconds spent on the wire, all requests */
  wireSeconds: number;
  /** requests over the islands' radio channels, and those refused because the channel was full */
  radio: number;
  radioBusy: number;
  /** simulated seconds of air time used on the islands' channels */
  airSeconds: number;
}

/** A radio island's channel can carry this many seconds of air time per clock reading (one round). */
export const AIR_SECONDS_PER_ROUND = 300;

/** Deadline of a federation request on the simulated wire (fedFetch's page deadline). */
const DEADLINE_S = 120;

export class SimNet {
  readonly nodes: SimNode[] = [];
  private byHost = new Map<string, SimNode>();
  private links = new Map<string, Link>();
  readonly stats: NetStats = { requests: 0, failed: 0, lost: 0, timedOut: 0, unresolvable: 0, bytes: 0, wireSeconds: 0, radio: 0, radioBusy: 0, airSeconds: 0 };
  /** per island: the clock reading its air time was counted at, and the seconds used then */
  private air = new Map<number, { at: number; used: number }>();
  tamper = new Map<string, Tamper>();
  /** simulated unix ms, for the Date header */
  now = () => 0;

  constructor(private readonly rand: Rng) {}

  add(node: SimNode): void {
    this.nodes.push(node);
    this.byHost.set(node.host, node);
    if (node.amprHost) this.byHost.set(node.amprHost, node);
  }

  /** The island whose radio channel carries a link between two gateways; null for no radio; "none" when there is no route. */
  private radioOf(a: SimNode, b: SimNode): number | null | "none" {
    if (a.island === null && b.island === null) return null;
    const island = a.island ?? b.island!;
    const other = a.island === null ? a : b;
    if (a.island !== null && b.island !== null) return a.island === b.island ? island : "none";
    return other.bridges === island ? island : "none";
  }

  /** The link between two gateways, drawn once (in a fixed order) and kept. */
  link(a: SimNode, b: SimNode): Link {
    const key = a.instance < b.instance ? `${a.instance}|${b.instance}` : `${b.instance}|${a.instance}`;
    let l = this.links.get(key);
    if (!l && this.radioOf(a, b) !== null) {
      l = { kind: "rf1200", rtt: 1.5 + this.rand.next() * 2.5, loss: 0.05, bandwidth: 120 };
      this.links.set(key, l);
    }
    if (!l) {
      const amateur = a.amprHost !== null && b.amprHost !== null && a.on44net && b.on44net;
      l = amateur
        ? { kind: "44net", rtt: 0.1 + this.rand.next() * 0.5, loss: 0.03, bandwidth: 20_000 + this.rand.int(0, 80_000) }
        : { kind: "internet", rtt: 0.02 + this.rand.next() * 0.2, loss: 0.01, bandwidth: 1_000_000 + this.rand.int(0, 9_000_000) };
      this.links.set(key, l);
    }
    return l;
  }

  /** The fedTransport of one gateway. */
  transportFor(from: () => SimNode): FedTransport {
    return async (url, init) => {
      const src = from();
      const u = new URL(url);
      // gossip pings are not simulated: the scheduler's rounds are the pulls
      if (u.pathname === "/federation/notify") return new Response("{}", { status: 503, headers: { "content-type": "application/json" } });
      this.stats.requests++;
      const dst = this.byHost.get(u.hostname);
      const fail = (name: string, message: string) => {
        this.stats.failed++;
        const e = new Error(message);
        e.name = name;
        return e;
      };
      if (!dst) {
        this.stats.unresolvable++;
        throw fail("TypeError", `${u.hostname}: no such host`);
      }
      if (u.hostname === dst.amprHost && !src.on44net) {
        this.stats.unresolvable++;
        throw fail("TypeError", `${u.hostname}: cannot resolve a 44net host without 44net access`);
      }
      if (!dst.online || !src.online) throw fail("TypeError", `${u.hostname}: connection refused (offline)`);
      const radio = this.radioOf(src, dst);
      if (radio === "none") throw fail("TypeError", `${u.hostname}: no route (a radio island)`);
      // a partition cuts the internet, not an island's radio
      if (radio === null && dst.side !== src.side && dst.side !== 0 && src.side !== 0) throw fail("TypeError", `${u.hostname}: no route (partition)`);
      const link = this.link(src, dst);
      if (radio !== null) {
        this.stats.radio++;
        const air = this.air.get(radio);
        if (air && air.at === this.now() && air.used >= AIR_SECONDS_PER_ROUND) {
          this.stats.radioBusy++;
          throw fail("TimeoutError", `${u.hostname}: the island's radio channel is busy`);
        }
      }
      if (this.rand.chance(link.loss)) {
        this.stats.lost++;
        throw fail("TypeError", `${u.hostname}: connection reset (lost)`);
      }
      const tampered = this.tamper.get(dst.instance);
      let path = u.pathname + u.search;
      // a tampering gateway serves pages uncompressed, so that it can rewrite them
      if (tampered) path = path.replace(/&compress=[^&]*/, "");
      const req = new Request(`http://${dst.host}${path}`, { method: init.method, headers: init.headers, body: init.body as BodyInit | undefined });
      const res = await dst.gw.app.handle(req);
      let bytes = new Uint8Array(await res.arrayBuffer());
      if (tampered && res.status === 200) bytes = new Uint8Array(tampered(u.pathname, src, bytes, res.headers.get("content-type")));
      const seconds = link.rtt + (bytes.length + 300) / link.bandwidth;
      this.stats.wireSeconds += seconds;
      if (radio !== null) {
        const air = this.air.get(radio);
        const used = (air && air.at === this.now() ? air.used : 0) + seconds;
        this.air.set(radio, { at: this.now(), used });
        this.stats.airSeconds += seconds;
      }
      if (seconds > DEADLINE_S) {
        this.stats.timedOut++;
        throw fail("TimeoutError", `${u.hostname}: no answer in time`);
      }
      this.stats.bytes += bytes.length;
      const headers = new Headers(res.headers);
      headers.set("date", new Date(this.now()).toUTCString());
      headers.set("content-length", String(bytes.length));
      return new Response(bytes, { status: res.status, headers });
    };
  }
}
