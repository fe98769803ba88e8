/**
 * A bounded write queue for one client socket: what the socket does not take
 * at once waits here, up to `limit` bytes. Past that the client is too slow
 * (or stuck) and `push` says so: the server drops the client rather than let
 * it hold memory or hold up the radio.
 */
import type { Socket } from "bun";

/** Bytes a client may have waiting before it is dropped. */
export const CLIENT_QUEUE_BYTES = 256 * 1024;

export class OutQueue {
  private chunks: Uint8Array[] = [];
  private bytes = 0;

  constructor(
    private socket: Socket<unknown>,
    private limit = CLIENT_QUEUE_BYTES,
  ) {}

  /** Writes or queues `data`; false when the queue would pass its limit (nothing is queued then). */
  push(data: Uint8Array): boolean {
    if (this.chunks.length === 0) {
      const n = this.socket.write(data);
      if (n >= data.length) return true;
      data = n > 0 ? data.subarray(n) : data;
    }
    if (this.bytes + data.length > this.limit) return false;
    this.chunks.push(data);
    this.bytes += data.length;
    return true;
  }

  /** Bytes waiting. */
  get pending(): number {
    return this.bytes;
  }

  /** The socket can take more: writes what waits, in order. */
  drain(): void {
    while (this.chunks.length) {
      const c = this.chunks[0]!;
      const n = this.socket.write(c);
      if (n >= c.length) {
        this.chunks.shift();
        this.bytes -= c.length;
        continue;
      }
      if (n > 0) {
        this.chunks[0] = c.subarray(n);
        this.bytes -= n;
      }
      return;
    }
  }
}
