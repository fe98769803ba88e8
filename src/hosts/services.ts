/**
 * Every domain's state for one gateway, built when the gateway is assembled
 * (src/hosts/gateway-core.ts): one entry per service a domain declares in
 * src/core/services.ts's `Services`. A domain that keeps something for the
 * gateway adds its line here; TypeScript refuses this file until it does.
 */
import type { Core } from "../core/core.ts";
import type { Services } from "../core/services.ts";
import { newClockWatch } from "../system/clock-sanity.ts";
import { newPulls } from "../fed/sync.ts";
import { newForwarding } from "../bbs/forwarding.ts";
import { newCacheObjects } from "../radio-play/objects.ts";
import { newRadioPlay } from "../radio-play/service.ts";
import { newIgate } from "../stations/igate.ts";
import { newIngestDupes } from "../stations/ingest.ts";
import { ingestFinds } from "../game/logs.ts";

export function buildServices(gw: Core): Services {
  return {
    // stations: the transports' status, the iGate, lines seen lately, our own weather pushes
    ports: new Map(),
    igate: newIgate(),
    ingestDupes: newIngestDupes(),
    ownWeather: new Map(),
    // finds in an ingest batch are the game's (src/game/logs.ts)
    findIngest: ingestFinds,
    // the radio: the running one, and what it sent lately (its echoes)
    radio: { running: null },
    echoes: new Map(),
    // radio play: the players' commands, their answers' senders, the caches shown as objects
    radioPlay: newRadioPlay(),
    playSenders: {},
    cacheObjects: newCacheObjects(gw),
    // federation: pulls, gossip pings, the spoke's push to its hub
    pulls: newPulls(),
    gossip: { timer: null, inflight: null, stopped: false },
    hubPush: { running: null },
    // the BBS: FBB forwarding, the boxes' sessions, SVCFED bulletins to the federation
    forwarding: newForwarding(),
    boxSessions: new Map(),
    svcfed: { receiver: null },
    // mail and the clock
    mail: { transport: null },
    clockWatch: newClockWatch(),
    // the HTTP layer's gates plugin (src/http/gates.ts)
    http: { gates: null },
  };
}
