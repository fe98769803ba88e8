/**
 * The live feeds of one gateway: its WebSocket rooms, its open CoT event
 * streams, and what feeds them and each user's channel. The composition root
 * builds one (src/hosts/gateway-core.ts) before the routes and starts it with
 * the gateway's other listeners; the Gateway holds it as `live`, and the
 * routes and the hosts' sockets use it from there.
 */
import type { Core } from "../core/core.ts";
import { LiveRooms, startRooms } from "./rooms.ts";
import { followPositions, type StreamClient } from "./stream.ts";
import { startUserChannel } from "./user-channel.ts";

export class Live {
  /** the region rooms, and connection counts per address and per user */
  readonly rooms: LiveRooms;
  /** the open CoT event streams */
  readonly streams = new Set<StreamClient>();

  constructor(private readonly gw: Core) {
    this.rooms = new LiveRooms(gw);
  }

  /** Starts following what the feeds carry: the composition root calls it once, among the gateway's other listeners. */
  start(): void {
    startRooms(this.gw); // positions and logs to their rooms
    followPositions(this.gw, this.streams); // and to the streams whose box holds them
    startUserChannel(this.gw, this.rooms); // a user's messages and alerts, live or by web push
  }
}
