/**
 * The web app's own SHA-256 (ui/offline/sha256.ts: crypto.subtle exists only
 * in a secure context) gives the digests node:crypto gives, across the block
 * and padding boundaries, so an imported field note keeps the same clientId
 * on plain http as over https.
 */
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { sha256 } from "../../ui/offline/sha256.ts";

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

describe("sha256", () => {
  test("the FIPS 180-4 examples", () => {
    expect(hex(sha256(new Uint8Array()))).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(hex(sha256(new TextEncoder().encode("abc")))).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });

  test("the same digest as node:crypto for every length around the 64-byte blocks", () => {
    for (let n = 0; n <= 200; n++) {
      const data = new Uint8Array(n).map((_, i) => (i * 31 + n) & 0xff);
      expect(hex(sha256(data))).toBe(createHash("sha256").update(data).digest("hex"));
    }
  });
});
