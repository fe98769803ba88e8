/**
 * In-process events between domains (ingest -> live rooms, logs -> alerts).
 * Listeners run synchronously after the write that caused them has committed;
 * a listener that throws is logged and never breaks the writer.
 */
import type { Logger } from "../lib/log.ts";

/**
 * How far a heard message proves that the station named as its source sent it
 * (docs/api.md "Callsign verification"): only `radio` and `box` may answer a
 * callsign challenge, `internet` only where the operator allows it, never
 * `device` or `relayed`.
 *
 *   radio     heard on the air by this gateway's own TNC
 *   box       posted by the operator's ingest box (x-ingest-secret) as heard on its radio:
 *             no q construct, no TCPIP in the path
 *   internet  APRS-IS, or an ingest-box line that came from APRS-IS
 *   device    posted to /ingest under a user's device key
 *   relayed   the inner packet of a third-party wrapper (`}`): whoever built the wrapper chose its source;
 *             or our own transmission heard back through a digipeater (src/radio-node/echoes.ts): whoever
 *             had us send it chose its source
 */
export type HeardProof = "radio" | "box" | "internet" | "device" | "relayed";

/** Every event type and its payload. Domains add their events here. */
export interface GatewayEvents {
  /**
   * A packet was stored by the ingest pipeline (any feed; not a duplicate of
   * the same packet from the same hearer). Carries the TNC2 line as heard so
   * the APRS-IS server (src/hub/) can serve it to its clients.
   */
  aprsPacket: {
    /** the TNC2 line as heard (latin1 for bytes that were not UTF-8) */
    line: string;
    src: string;
    dst: string | null;
    /** the path after the destination, as in the line ("" when none) */
    path: string;
    /** the information field */
    info: string;
    ts: number;
    /** rf (heard on the air by `igate`), aprsis, ingest */
    source: string;
    igate: string | null;
    /** how it reached us: tnc, aprsis, ingest */
    via: string;
    /** the decoded packet; null when it did not decode */
    packet: import("../lib/aprs/types.ts").AprsPacket | null;
    /** who handed it in, when a hub client did (it is not echoed back to that client) */
    origin?: string;
  };
  /**
   * An APRS message, ack, reject or bulletin was heard (ingest box, APRS-IS or
   * RF). Emitted by the APRS ingest pipeline; callsign verification listens.
   */
  aprsMessage: {
    src: string;
    addressee: string;
    kind: "message" | "ack" | "rej" | "bulletin" | "announcement";
    text: string;
    msgId?: string;
    /** APRS 1.1 reply-ack: the id of the addressee's message this one acks (`{MM}AA`) */
    replyAck?: string;
    ts: number;
    source: string;
    igate?: string;
    /** how far this proves the source sent it (HeardProof above) */
    proof: HeardProof;
  };
  /**
   * A user's APRS message changed state with no ack heard (src/stations/outbox.ts):
   * sent, sent again, or out of attempts. The messaging screen shows it live.
   */
  outboxMessage: { userId: number; src: string; addressee: string; msgId: string };
  /** A find, DNF or note was logged on a cache (live rooms and watch alerts listen). */
  log: {
    logId: number;
    /** the native cache's id; 0 for a log on a mirrored cache of another instance */
    cacheId: number;
    /** the cache's gid (any origin) */
    cacheGid: string;
    /** the log's kind (src/game/model.ts LOG_KINDS) */
    kind: string;
    call: string;
    ts: number;
    lat: number;
    lon: number;
  };
  /**
   * A federated record (or tombstone, or account-move) of this instance was
   * published and committed (src/fed/feed.ts). Gossip (notify pings) and
   * carriers that push listen.
   */
  fedPublished: {
    type: number;
    gid: string;
    v: number;
  };
  /** A pull of a peer finished (src/fed/sync.ts), well or not. */
  fedSynced: {
    instance: string;
    ok: boolean;
    /** frames applied */
    applied: number;
    /** the error code when it failed */
    error: string | null;
  };
  /** Peers answered about a find that could not reach Tier A here (src/fed/corroborate.ts). */
  fedCorroborated: {
    logId: number;
    /** confirmed (promoted to Tier A), pending (asked again later) or unconfirmed (given up) */
    state: "pending" | "confirmed" | "unconfirmed";
    confirmations: number;
    quorum: number;
  };
  /**
   * A find was logged below Tier A, at its cache's place (src/game/logs.ts),
   * outside any transaction: the federation asks trusted peers whether they
   * heard the finder there (src/fed/corroborate.ts).
   */
  findPending: {
    logId: number;
    /** gid of the find record, `origin:find:id` */
    gid: string;
    cacheGid: string;
    /** the finder's callsign as logged */
    call: string;
    /** the cache's position */
    lat: number;
    lon: number;
    /** when the find happened, unix ms */
    foundAt: number;
  };
  /** A trackable's drop, retrieve or visit was logged here below Tier A, at a known place (src/game/trackables-moves.ts): peers are asked. */
  trackableMoveLogged: {
    moveId: number;
    call: string;
    /** the cache's position */
    lat: number;
    lon: number;
    /** when it happened, unix ms */
    at: number;
  };
  /** Peers answered about a trackable's move (src/fed/corroborate.ts); promoted when confirmations reached the quorum. */
  trackableMoveCorroborated: {
    moveId: number;
    confirmations: number;
    quorum: number;
  };
  /** A station position was stored (ingest, RF, web). */
  position: {
    call: string;
    lat: number;
    lon: number;
    ts: number;
    /** rf (heard on the air by `igate`), aprsis, ingest, browser, wx */
    source: string;
    /** the IGate that heard it on RF, when known (Tier A corroboration) */
    igate?: string;
    /** how it reached us: tnc, aprsis, ingest, web */
    via?: string;
    /** the positions row, for pinning a corroborating position to a find */
    positionId?: number;
    kind?: "station" | "object" | "item";
    /** objects and items: false once killed */
    alive?: boolean;
    symbol?: string;
    course?: number;
    speedKmh?: number;
    altM?: number;
    comment?: string;
  };
  /**
   * An own station became (or stopped being) a living cache: a cache whose
   * position is the station's latest beacon (src/stations/living-caches.ts).
   * The game listens to show or hide it.
   */
  livingCache: {
    stationId: number;
    call: string;
    userId: number;
    on: boolean;
    name?: string;
  };
  /** A BBS message was stored: composed here, forwarded in, or handed in by the ingest box. */
  bbsMessage: {
    id: number;
    type: "P" | "B" | "T";
    bid: string;
    from: string;
    to: string;
    at: string | null;
    origin: "local" | "fbb" | "box";
    delivery: "local" | "transit" | "unrouted";
  };
}

type Listener<K extends keyof GatewayEvents> = (payload: GatewayEvents[K]) => void;

export class EventBus {
  private listeners = new Map<keyof GatewayEvents, Set<Listener<any>>>();
  constructor(private log?: Logger) {}

  /** Subscribes; returns the function that unsubscribes. */
  on<K extends keyof GatewayEvents>(type: K, fn: Listener<K>): () => void {
    let set = this.listeners.get(type);
    if (!set) this.listeners.set(type, (set = new Set()));
    set.add(fn);
    return () => set!.delete(fn);
  }

  emit<K extends keyof GatewayEvents>(type: K, payload: GatewayEvents[K]): void {
    const set = this.listeners.get(type);
    if (!set) return;
    for (const fn of set) {
      try {
        fn(payload);
      } catch (e) {
        this.log?.error("events", `listener for ${String(type)} failed`, { error: String(e) });
      }
    }
  }
}
