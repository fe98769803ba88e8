/**
 * Accounts on the request path: what a session costs per request (the
 * signed-in lookup every gated request does), what a signed-body check costs
 * against a bare Ed25519 verification, and how long a full export takes.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPublicKey, sign, verify } from "node:crypto";
import { configFor } from "../src/core/config.ts";
import { createGateway } from "../src/hosts/gateway.ts";
import { createLogger } from "../src/lib/log.ts";
import { createSession, SESSION_COOKIE } from "../src/accounts/sessions.ts";
import { assertionBytes, checkAssertion } from "../src/accounts/assertions.ts";
import { generateKeyPair, privateKeyObject } from "../src/lib/fed/keys.ts";
import { markCallsignVerified } from "../src/accounts/users.ts";
import { exportAccount } from "../src/accounts/gdpr.ts";
import { loadInChild } from "./lib/load.ts";
import { median, table } from "./lib/stats.ts";

export async function run(sessions = 10_000) {
  const dir = mkdtempSync(join(tmpdir(), "svc-bench-accounts-"));
  const gw = createGateway({ config: configFor(dir, { PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "error" }), log: createLogger("error") });
  const url = await gw.listen();
  const now = Date.now();

  // Many accounts and sessions, so lookups hit a realistic index.
  let cookie = "";
  let userId = 0;
  gw.db.transaction(() => {
    for (let i = 0; i < sessions; i++) {
      const id = Number(gw.db.query("INSERT INTO users (created_at) VALUES (?)").run(now).lastInsertRowid);
      gw.db.query("INSERT INTO callsigns (user_id, call, active, created_at) VALUES (?, ?, 1, ?)").run(
        id,
        `N${i % 10}B${String(i)
          .padStart(5, "0")
          .replace(/\d/g, (d) => "ABCDEFGHIJ"[Number(d)]!)}`.slice(0, 7),
        now,
      );
      const token = createSession(gw.db, id, now);
      if (i === sessions - 1) {
        cookie = `${SESSION_COOKIE}=${token}`;
        userId = id;
      }
    }
  })();
  markCallsignVerified(gw, userId, "N0BENCH", "bench: verified by hand");

  const reference = await loadInChild(url + "/health?live", 8, 3);
  const session = await loadInChild(url + "/auth/callsign", 8, 3, { cookie });
  const account = await loadInChild(url + "/auth/session", 8, 3, { cookie });

  // Signed-body checks in process: signature + key lookup + replay record, against bare verification.
  const kp = generateKeyPair();
  gw.db.query("INSERT INTO device_keys (user_id, call, public_key, created_at) VALUES (?, 'N0BENCH', ?, ?)").run(userId, kp.publicKey, now);
  const priv = privateKeyObject(kp.privateKey);
  const n = 5000;
  const bodies = Array.from({ length: n }, (_, i) => {
    const b = { confirm: true, n: i, key: kp.publicKey, at: Math.floor(now / 1000) };
    return { ...b, sig: sign(null, assertionBytes("POST", "/api/account/N0BENCH/export", b), priv).toString("base64url") };
  });
  const pub = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: kp.publicKey }, format: "jwk" });
  const messages = bodies.map((b) => assertionBytes("POST", "/api/account/N0BENCH/export", b));
  let t0 = performance.now();
  for (let i = 0; i < n; i++) verify(null, messages[i]!, pub, Buffer.from(bodies[i]!.sig, "base64url"));
  const bare = n / ((performance.now() - t0) / 1000);
  t0 = performance.now();
  for (const b of bodies) checkAssertion(gw.db, { call: "N0BENCH", method: "POST", path: "/api/account/N0BENCH/export", body: b }, now);
  const checked = n / ((performance.now() - t0) / 1000);

  const exportMs: number[] = [];
  for (let i = 0; i < 20; i++) {
    const t = performance.now();
    exportAccount(gw, userId);
    exportMs.push(performance.now() - t);
  }

  console.log(`\naccounts: ${sessions} accounts with sessions`);
  console.log(
    table([
      { what: "GET /health?live (reference, no session)", "req/s": reference.rps, "p50 ms": reference.p50Ms, "p99 ms": reference.p99Ms, ratio: "1.00" },
      {
        what: "GET /auth/callsign (session lookup)",
        "req/s": session.rps,
        "p50 ms": session.p50Ms,
        "p99 ms": session.p99Ms,
        ratio: (session.rps / reference.rps).toFixed(2),
      },
      {
        what: "GET /auth/session (whole account)",
        "req/s": account.rps,
        "p50 ms": account.p50Ms,
        "p99 ms": account.p99Ms,
        ratio: (account.rps / reference.rps).toFixed(2),
      },
    ]),
  );
  console.log(
    table([
      { what: "Ed25519 verify of the signed bytes, bare node:crypto (reference)", "per s": Math.round(bare), ratio: "1.00" },
      {
        what: "signed-body check (canonical JSON, key lookup, strict verify, replay record)",
        "per s": Math.round(checked),
        ratio: (checked / bare).toFixed(2),
      },
    ]),
  );
  console.log(`account export: median ${median(exportMs).toFixed(2)} ms`);
  await gw.stop();
  rmSync(dir, { recursive: true, force: true });
}

if (import.meta.main) await run();
