/**
 * A station as the Radio page shows it: a gateway with a fake TNC on its radio
 * port, its KISS and APRS-IS servers for local programs, and an APRSdroid-like
 * client (N0PHN-9) logged in to the APRS-IS server.
 */
import { startInProcess, type Running } from "./gateway.ts";
import { fakeTnc, type FakeTnc } from "./kiss-tnc.ts";
import { lineClient, type LineClient } from "./line-client.ts";
import { aprsIsPasscode } from "../../src/lib/aprs/passcode.ts";

export interface Station {
  g: Running;
  tnc: FakeTnc;
  /** the APRS-IS client, logged in and verified */
  is: LineClient;
  stop(): Promise<void>;
}

export async function stationWithClients(env: Record<string, string> = {}): Promise<Station> {
  const tnc = fakeTnc();
  const g = await startInProcess({
    TILE_URL: "off",
    KISS_PORTS: tnc.url,
    RADIO_CALL: "N0GW-10",
    KISS_SERVER: "127.0.0.1:0",
    APRSIS_LISTEN: "127.0.0.1:0",
    ADMIN_CALLSIGNS: "N0OPS",
    ...env,
  });
  await tnc.connected();
  const is = await lineClient(g.gw.hub!.aprsIs!.port);
  is.send(`user N0PHN-9 pass ${aprsIsPasscode("N0PHN-9")} vers APRSdroid 1.6 filter r/42.6/-71.3/50`);
  await is.waitFor(/^# logresp N0PHN-9 verified/);
  return {
    g,
    tnc,
    is,
    async stop() {
      is.close();
      await g.stop();
      tnc.stop();
    },
  };
}
