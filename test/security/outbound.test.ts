/**
 * The outbound guard's pinning: the name is resolved once, checked, and the
 * connection goes to that address, so a second (rebound) answer is never
 * asked for. The resolver here answers for a name the system resolver does not
 * know, so a request that reached the server can only have gone to the
 * address the guard checked.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { guardedFetch, OutboundRefused, type Lookup } from "../../src/lib/net/outbound.ts";

let server: ReturnType<typeof Bun.serve>;
const seen: Array<string | null> = [];
beforeAll(() => {
  server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (r) => (seen.push(r.headers.get("host")), new Response("pinned")) });
});
afterAll(() => server.stop(true));

/** First a loopback answer, then (had anyone asked again) a public one: a rebinding name in reverse. */
function rebinding(): { lookup: Lookup; asked: () => number } {
  let n = 0;
  return {
    lookup: async () => (n++ === 0 ? [{ address: "127.0.0.1", family: 4 }] : [{ address: "93.184.216.34", family: 4 }]),
    asked: () => n,
  };
}

test("the address checked is the address connected to, asked once; refused before any connection when it is special", async () => {
  const url = `http://rebind.invalid:${server.port}/x`;
  const refused = rebinding();
  await expect(guardedFetch(url, {}, { allowPrivate: false, lookup: refused.lookup })).rejects.toBeInstanceOf(OutboundRefused);
  expect(refused.asked()).toBe(1);
  expect(seen).toEqual([]);
  // Positive control (lab setting): the same name reaches the server at the address the guard resolved, with its name in Host.
  const lab = rebinding();
  const r = await guardedFetch(url, {}, { allowPrivate: true, lookup: lab.lookup });
  expect(await r.text()).toBe("pinned");
  expect(lab.asked()).toBe(1);
  expect(seen).toEqual([`rebind.invalid:${server.port}`]);
});

test("one special address among public ones refuses the name", async () => {
  const lookup: Lookup = async () => [
    { address: "93.184.216.34", family: 4 },
    { address: "::ffff:192.168.0.1", family: 6 },
  ];
  await expect(guardedFetch("https://mixed.invalid/", {}, { allowPrivate: false, lookup })).rejects.toBeInstanceOf(OutboundRefused);
});
