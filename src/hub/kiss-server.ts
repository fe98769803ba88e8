/**
 * The KISS TCP server (KISS_SERVER): local APRS and packet programs (APRSdroid,
 * Xastir, YAAC, aprx, a second Direwolf application) use the gateway's radio
 * as if it were their TNC, as they would Direwolf's port 8001.
 *
 *   heard   every frame heard on any radio port goes to every client, as a KISS
 *           data frame on that port's number (the order of KISS_PORTS, from 0)
 *   sent    a client needs no login, so it transmits only where the sysop
 *           allows it (KISS_SERVER_TX=on; off, its frames are dropped, logged
 *           once per client and counted as txOff), and only as a station of
 *           this instance: the frame's source must be a callsign verified here
 *           (RADIO_CALL's base call with any SSID is one, or nothing could go
 *           out); another source is refused (notAllowed). Allowed frames go
 *           through the gateway's transmitter (src/radio-node/tx.ts sendFrame): only
 *           while RADIO_CALL is verified, each taking a token of
 *           RADIO_TX_PER_MINUTE. Whatever goes out is remembered as our own
 *           (src/radio-node/echoes.ts): heard back through a digipeater it proves
 *           nothing. TNC parameter commands (TXDELAY...) are not the client's
 *           to set on a shared radio: ignored.
 *   capped  a connection past HUB_CLIENTS_PER_ADDRESS from its address, or
 *           HUB_CLIENTS_MAX in all, is closed at once (counted).
 *   slow    a client whose queue passes CLIENT_QUEUE_BYTES is dropped; the radio
 *           never waits for a client.
 */
import type { Socket } from "bun";
import type { Core } from "../core/core.ts";
import { radioMayTransmit, radioOf } from "../radio-node/running-radio.ts";
import { registerPort } from "../stations/ports.ts";
import { decodeFrame, encodeKiss, formatAddress, KissDecoder } from "../../radio/index.ts";
import { isVerifiedCall } from "../radio-node/tx.ts";
import { clientView, type HubClient, type HubClients } from "./clients.ts";
import type { OutQueue } from "./outq.ts";
import { hostPort, listenForClients } from "./listen.ts";

interface Conn {
  client: HubClient;
  out: OutQueue;
  decoder: KissDecoder;
  socket: Socket<Conn>;
  /** frames refused for their source (the first is logged) */
  notAllowed: number;
}

export interface KissServerStats {
  /** frames heard on the radio and copied to clients (once per client) */
  copied: number;
  /** client frames put on the air */
  sent: number;
  /** client frames refused: KISS_SERVER_TX off, a source not verified here, RADIO_CALL not verified, no radio port */
  refused: number;
  /** of those: KISS_SERVER_TX is off */
  txOff: number;
  /** of those: the frame's source is not a callsign verified on this instance */
  notAllowed: number;
  /** client frames held back by the transmit rate limit */
  rateLimited: number;
  /** client frames that were not AX.25 */
  bad: number;
  /** clients dropped for being too slow */
  slowDropped: number;
  /** connections closed at once: HUB_CLIENTS_PER_ADDRESS or HUB_CLIENTS_MAX reached */
  capped: number;
}

export interface KissServer {
  port: number;
  stats: KissServerStats;
  stop(): void;
}

export function startKissServer(gw: Core, at: { host: string; port: number }, clients: HubClients): KissServer | null {
  const stats: KissServerStats = { copied: 0, sent: 0, refused: 0, txOff: 0, notAllowed: 0, rateLimited: 0, bad: 0, slowDropped: 0, capped: 0 };
  const conns = new Set<Conn>();
  const gr = radioOf(gw);
  const portIds = gr?.radio.ports.map((p) => p.id) ?? [];

  const fromClient = (c: Conn, chunk: Uint8Array) => {
    for (const r of c.decoder.push(chunk)) {
      if (!r.ok || r.value.command !== "data") {
        if (!r.ok) stats.bad++;
        continue;
      }
      c.client.rx++;
      const f = decodeFrame(r.value.data);
      if (!f.ok) {
        stats.bad++;
        c.client.refused++;
        continue;
      }
      if (!gw.config.kissServerTx) {
        stats.refused++;
        stats.txOff++;
        if (c.client.refused++ === 0) gw.log.warn("hub", `KISS client ${c.client.address} tried to transmit: dropped (KISS_SERVER_TX is off)`);
        continue;
      }
      const src = formatAddress(f.value.src);
      if (!isVerifiedCall(gw, src)) {
        stats.refused++;
        stats.notAllowed++;
        c.client.refused++;
        if (c.notAllowed++ === 0)
          gw.log.warn("hub", `KISS client ${c.client.address}: frames from ${src} refused (not a callsign verified on this instance; logged once per client)`);
        continue;
      }
      const port = portIds[r.value.port];
      const result = gr && port ? gr.tx.sendFrame(f.value, port) : "no-port";
      if (result === "sent") stats.sent++;
      else {
        c.client.refused++;
        if (result === "rate-limited") stats.rateLimited++;
        else stats.refused++;
      }
    }
  };

  const drop = (c: Conn, why: string, quiet = false) => {
    if (!conns.delete(c)) return;
    clients.remove(c.client.id);
    if (!quiet) gw.log.info("hub", `KISS client ${c.client.address} ${why}`);
    c.socket.end();
  };

  const listener = listenForClients<Conn>(clients, "kiss", `KISS_SERVER ${hostPort(at.host, at.port)}`, at, {
    make: () => ({ decoder: new KissDecoder(), notAllowed: 0 }),
    opened(c) {
      conns.add(c);
      const full = clients.overCap(c.client);
      if (full) {
        stats.capped++;
        drop(c, "refused", true);
        clients.logCapped("kiss", full);
        return;
      }
      gw.log.info("hub", `KISS client ${c.client.address} connected`);
    },
    data: (c, chunk) => fromClient(c, chunk),
    drop,
  });
  if (!listener) return null;

  // every frame heard, byte for byte, on its port's KISS number
  const offs = (gr?.radio.ports ?? []).map((p, i) =>
    p.port.onFrame((frame) => {
      if (!conns.size) return;
      const kiss = encodeKiss(frame, i);
      for (const c of [...conns]) {
        if (c.out.push(kiss)) {
          c.client.tx++;
          stats.copied++;
        } else {
          c.client.dropped++;
          stats.slowDropped++;
          drop(c, `dropped: more than ${c.out.pending} bytes waiting (too slow)`);
        }
      }
    }),
  );

  const address = hostPort(at.host, listener.port);
  const off = registerPort(gw, "kiss-server", () => {
    const mine = clients.of("kiss");
    return {
      name: "kiss-server",
      kind: "kiss-server",
      state: "up",
      listen: address,
      radio: gr ? portIds : [],
      transmit: !!gr && gw.config.kissServerTx && radioMayTransmit(gw),
      rx: mine.reduce((n, c) => n + c.rx, 0),
      tx: stats.copied,
      ...stats,
      clients: mine.map(clientView),
    };
  });
  gw.log.info(
    "hub",
    `KISS server on ${address}${gr ? ` for radio ports ${portIds.join(", ")}` : " (no radio port: clients hear nothing and cannot transmit)"}`,
  );
  const server: KissServer = {
    port: listener.port,
    stats,
    stop() {
      for (const o of offs) o();
      off();
      for (const c of [...conns]) drop(c, "closed: the gateway stops");
      listener.stop(true);
    },
  };
  gw.onStop(() => server.stop());
  return server;
}
