/** APRS for the tests: position text to put on the air or through the ingest box, and a fake APRS-IS server. */
import type { Socket } from "bun";
import type { Running } from "./gateway.ts";

/** An uncompressed position report of a point: `!DDMM.mmN/DDDMM.mmE` and the symbol (default `[`). */
export function aprsPos(lat: number, lon: number, symbol = "["): string {
  const la = Math.abs(lat);
  const lo = Math.abs(lon);
  const latS = `${String(Math.floor(la)).padStart(2, "0")}${((la % 1) * 60).toFixed(2).padStart(5, "0")}${lat >= 0 ? "N" : "S"}`;
  const lonS = `${String(Math.floor(lo)).padStart(3, "0")}${((lo % 1) * 60).toFixed(2).padStart(5, "0")}${lon >= 0 ? "E" : "W"}`;
  return `!${latS}/${lonS}${symbol}`;
}

/** One RF beacon of `call` at a point, heard by `igate` at `heardAt`, handed to a gateway's ingest box. */
export function ingestBeacon(g: Running, ingestSecret: string, call: string, igate: string, lat: number, lon: number, heardAt: number): Promise<Response> {
  const line = `${call}>APRS,WIDE1-1,qAR,${igate}:${aprsPos(lat, lon)}`;
  return g.post("/ingest", { heardAt, packets: [line] }, { headers: { "x-ingest-secret": ingestSecret } });
}

/** TNC2 lines handed to a gateway's ingest box as heard a minute apart, the last one a minute before `now`. */
export function ingestMinuteApart(g: Running, ingestSecret: string, lines: string[], now = Date.now()): Promise<Response> {
  const packets = lines.map((line, k) => ({ line, heardAt: now - (lines.length - k) * 60_000 }));
  return g.post("/ingest", { packets }, { headers: { "x-ingest-secret": ingestSecret } });
}

/** A fake APRS-IS server (fakeAprsIs): its port, all the client has sent so far, and the client's socket once connected. */
export interface FakeAprsIs {
  readonly port: number;
  readonly received: string;
  readonly client: Socket<undefined> | null;
  stop(): void;
}

/** An APRS-IS server on 127.0.0.1 that greets as aprsc and answers the login with `verified`. */
export function fakeAprsIs(): FakeAprsIs {
  let client: Socket<undefined> | null = null;
  let received = "";
  const server = Bun.listen<undefined>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(s) {
        client = s;
        s.write("# aprsc 2.1.19\r\n");
      },
      data(s, d) {
        received += new TextDecoder().decode(d);
        s.write(`# logresp ${received.split(" ")[1]} verified, server T2TEST\r\n`);
      },
    },
  });
  return {
    port: server.port,
    get received() {
      return received;
    },
    get client() {
      return client;
    },
    stop: () => server.stop(true),
  };
}
