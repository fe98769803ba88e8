/**
 * GET /api/admin/whoami: whether the caller is an operator, as the sysop gate
 * would decide it, checked against a real sysop-gated route.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser } from "../helpers/accounts.ts";

const INGEST = "ingest-secret-0123456789";
let g: Running;
let locked: Running;
beforeAll(async () => {
  g = await startInProcess({ INGEST_SECRET: INGEST, ADMIN_CALLSIGNS: "N0OPS" });
  locked = await startInProcess({ INGEST_SECRET: INGEST });
});
afterAll(async () => {
  await g.stop();
  await locked.stop();
});

const whoami = async (r: Running, headers: Record<string, string> = {}) => {
  const res = await r.get("/api/admin/whoami", { headers });
  expect(res.status).toBe(200);
  return res.json();
};
/** What a real sysop-gated route answers the same caller. */
const sysopRoute = async (r: Running, headers: Record<string, string> = {}) => (await r.get("/federation/peers", { headers })).status;

describe("GET /api/admin/whoami", () => {
  test("an operator by session or by ingest secret; a stranger, an unverified claim and a signed-out visitor are not", async () => {
    const admin = signedInUser(g.gw, "N0OPS-9", { verified: true });
    const claim = signedInUser(g.gw, "N0OPS");
    const other = signedInUser(g.gw, "N0ELSE", { verified: true });
    const cases: Array<[Record<string, string>, object]> = [
      [{ cookie: admin.cookie }, { operator: true, via: "session", callsign: "N0OPS-9", verified: true, locked: false, reason: null }],
      [{ "x-ingest-secret": INGEST }, { operator: true, via: "ingest-secret", callsign: null, verified: false, locked: false, reason: null }],
      [{ cookie: claim.cookie }, { operator: false, via: null, callsign: "N0OPS", verified: false, locked: false, reason: "callsign_not_verified" }],
      [{ cookie: other.cookie }, { operator: false, via: null, callsign: "N0ELSE", verified: true, locked: false, reason: "not_an_operator" }],
      [{ "x-ingest-secret": "wrong" }, { operator: false, via: null, callsign: null, verified: false, locked: false, reason: "signed_out" }],
      [{}, { operator: false, via: null, callsign: null, verified: false, locked: false, reason: "signed_out" }],
    ];
    for (const [headers, expected] of cases) {
      const answer = await whoami(g, headers);
      expect(answer).toEqual(expected);
      // It says what the sysop gate does.
      expect({ operator: answer.operator, status: await sysopRoute(g, headers) }).toEqual({
        operator: answer.operator,
        status: answer.operator ? 200 : answer.reason === "signed_out" ? 401 : 403,
      });
    }
  });

  test("without ADMIN_CALLSIGNS the web operator surface is locked; the ingest secret still operates", async () => {
    const admin = signedInUser(locked.gw, "N0OPS", { verified: true });
    expect(await whoami(locked, { cookie: admin.cookie })).toEqual({
      operator: false,
      via: null,
      callsign: "N0OPS",
      verified: true,
      locked: true,
      reason: "locked",
    });
    expect(await sysopRoute(locked, { cookie: admin.cookie })).toBe(403);
    expect(await whoami(locked, { "x-ingest-secret": INGEST })).toMatchObject({ operator: true, via: "ingest-secret", locked: true });
    expect(await sysopRoute(locked, { "x-ingest-secret": INGEST })).toBe(200);
  });
});
