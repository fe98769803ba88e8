/**
 * Ports for the subprocesses a test starts (xfbbd, Direwolf, pebble, a second
 * gateway...), which bind them some time after they are chosen.
 *
 * They come from below the kernel's ephemeral range: a port the kernel handed
 * out for `port: 0` is also what it hands any outgoing connection as its local
 * port, so in the moment between choosing and binding, a connection from
 * another test could take it. xfbbd then runs without its telnet port and says
 * nothing (a CI run waited 60 s for it).
 */
import { readFileSync } from "node:fs";

function ephemeralLow(): number {
  try {
    const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    if (low > 12_000) return low;
  } catch {}
  return 32_768;
}

const LOW = 10_000;
const HIGH = ephemeralLow();

/** `n` distinct ports free on every address, held open together while chosen so they differ. */
export async function freePorts(n: number): Promise<number[]> {
  const held: Array<{ port: number; stop(closeActive?: boolean): void }> = [];
  try {
    for (let tries = 0; held.length < n; tries++) {
      if (tries > 1000) throw new Error(`no ${n} free ports between ${LOW} and ${HIGH}`);
      const port = LOW + Math.floor(Math.random() * (HIGH - LOW));
      if (held.some((h) => h.port === port)) continue;
      try {
        held.push(Bun.listen({ hostname: "0.0.0.0", port, socket: { data() {} } }));
      } catch {
        // taken: try another
      }
    }
    return held.map((h) => h.port);
  } finally {
    for (const h of held) h.stop(true);
  }
}

export const freePort = async (): Promise<number> => (await freePorts(1))[0]!;
