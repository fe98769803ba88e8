/**
 * Supporter recognition's bodies against the real server: each is closed, so
 * a member it does not declare is refused by name (400, `field`) and changes
 * nothing, and the same body without it is taken.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser } from "../helpers/accounts.ts";

const INGEST = "ingest-secret-for-supporters";
let g: Running;
beforeAll(async () => {
  g = await startInProcess({ INGEST_SECRET: INGEST });
});
afterAll(() => g.stop());

const json = (r: Response) => r.json() as Promise<any>;
const ops = { headers: { "x-ingest-secret": INGEST } };

describe("undeclared fields", () => {
  test("confirm and prefs name a field they do not take, and take the same body without it", async () => {
    const u = signedInUser(g.gw, "N0SUP", { verified: true });
    const me = { headers: { cookie: u.cookie } };
    const supporters = () => g.gw.db.query("SELECT user_id, public, name, level FROM supporters").all();

    const bad = await g.post("/api/support/confirm", { call: "N0SUP", level: "club", amount: 5 }, ops);
    expect({ status: bad.status, body: await json(bad) }).toEqual({
      status: 400,
      body: { error: "invalid", message: 'body.amount: unknown field "amount"; it takes call, email, until, level', field: "body.amount" },
    });
    expect(supporters()).toEqual([]);
    const ok = await g.post("/api/support/confirm", { call: "N0SUP", level: "club" }, ops);
    expect({ status: ok.status, body: await json(ok) }).toEqual({ status: 200, body: { confirmed: true, until: null } });

    const stray = await g.post("/api/support/prefs", { public: true, colour: "red" }, me);
    expect({ status: stray.status, body: await json(stray) }).toEqual({
      status: 400,
      body: { error: "invalid", message: 'body.colour: unknown field "colour"; it takes public, name', field: "body.colour" },
    });
    expect(await json(await g.get("/api/support/prefs", me))).toMatchObject({ supporter: true, public: false });
    expect(await json(await g.post("/api/support/prefs", { public: true }, me))).toMatchObject({ supporter: true, public: true, level: "club" });
    expect((await json(await g.get("/api/support"))).supporters).toEqual([expect.objectContaining({ call: "N0SUP", level: "club" })]);
  });
});
