/**
 * The local CA's server certificate over time, on its own clock: issued for
 * the names the gateway answers on, issued again when one changes, renewed
 * at two thirds of its 30 days and not before, each new one handed to the
 * listener (swap); the CA itself stays.
 */
import { describe, expect, test } from "bun:test";
import { X509Certificate } from "node:crypto";
import { configFor } from "../../src/core/config.ts";
import { createLogger } from "../../src/lib/log.ts";
import { AcmeChallenges, type PemPair } from "../../src/tls/index.ts";
import { localCaSource } from "../../src/tls/local-ca.ts";
import { tmpDir } from "../helpers/tmp.ts";

const DAY = 86_400_000;
const sans = (pair: PemPair) => (new X509Certificate(pair.cert).subjectAltName ?? "").split(", ");

describe("the local CA's server certificate", () => {
  test("follows the addresses and the calendar", async () => {
    let clock = Date.now();
    let names = ["gw", "gw.local", "localhost", "127.0.0.1", "192.168.1.20"];
    const swapped: PemPair[] = [];
    const dir = tmpDir();
    const source = await localCaSource(
      { config: configFor(tmpDir()), log: createLogger("error"), dir, challenges: new AcmeChallenges(), swap: (p) => swapped.push(p) },
      { now: () => clock, names: () => names },
    );
    const first = source.current();
    expect(sans(first)).toEqual(["DNS:gw", "DNS:gw.local", "DNS:localhost", "IP Address:127.0.0.1", "IP Address:192.168.1.20"]);
    const life = new Date(new X509Certificate(first.cert).validTo).getTime() - clock;
    expect(life).toBeLessThanOrEqual(30 * DAY);

    // nothing changed: the same certificate
    clock += 10 * DAY;
    await source.check();
    expect(swapped).toHaveLength(0);

    // the DHCP lease moved: a certificate for the new address, at once
    names = ["gw", "gw.local", "localhost", "127.0.0.1", "192.168.1.77"];
    await source.check();
    expect(swapped).toHaveLength(1);
    expect(sans(swapped[0]!)).toContain("IP Address:192.168.1.77");
    expect(sans(swapped[0]!)).not.toContain("IP Address:192.168.1.20");
    expect(source.current()).toBe(swapped[0]!);
    expect(source.state().names).toEqual(names);

    // 19 days into the new one: still short of two thirds
    clock += 19 * DAY;
    await source.check();
    expect(swapped).toHaveLength(1);
    // 21 days: renewed, 30 days from now
    clock += 2 * DAY;
    await source.check();
    expect(swapped).toHaveLength(2);
    const renewed = new X509Certificate(swapped[1]!.cert);
    expect(Math.abs(new Date(renewed.validTo).getTime() - (clock + 30 * DAY))).toBeLessThan(2000);
    // always from the same CA
    expect(renewed.checkIssued(new X509Certificate(await Bun.file(`${dir}/ca.pem`).text()))).toBe(true);
    source.stop();
  });
});
