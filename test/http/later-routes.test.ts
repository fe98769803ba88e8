/**
 * The routes a start does not need (every domain's but the system's, the API
 * documentation) are mounted when first needed (src/http/app.ts): a gateway
 * answers /health before they are, a request for one of them waits for them
 * and gets the answer a fully started gateway gives, and a serving gateway
 * mounts them by itself once start-up is over.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { tmpDir } from "../helpers/tmp.ts";
import { configFor } from "../../src/core/config.ts";
import { createLogger } from "../../src/lib/log.ts";
import { startGateway, type Gateway } from "../../src/hosts/gateway.ts";

let running: Running | null = null;
let served: Gateway | null = null;
afterEach(async () => {
  await running?.stop();
  await served?.stop();
  running = null;
  served = null;
});

/** True once the gateway's later routes are mounted (asking does not mount them). */
function watchMounted(gw: Gateway): () => boolean {
  let mounted = false;
  gw.app.onRestMounted(() => {
    mounted = true;
  });
  return () => mounted;
}

/** Opens a WebSocket to the live rooms; resolves with how it went. */
function openSocket(url: string): Promise<string> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url.replace(/^http/, "ws") + "/ws?region=FN42");
    ws.onopen = () => {
      ws.close();
      resolve("open");
    };
    ws.onerror = () => resolve("refused");
  });
}

describe("routes mounted when first needed", () => {
  test("/health answers before the other routes are mounted; the first requests for them wait and get their full answers", async () => {
    running = await startInProcess();
    const g = running;
    const mounted = watchMounted(g.gw);
    const health = await g.get("/health");
    expect(health.status).toBe(200);
    expect(((await health.json()) as { status: string }).status).toBe("ok");
    expect(mounted()).toBe(false);

    // all at once, as a browser's first page load and a peer's pull may come
    const [stations, preflight, badBody, page, unknown, socket, docs] = await Promise.all([
      g.get("/api/stations"),
      g.get("/api/caches", { method: "OPTIONS", headers: { origin: "https://example.org", "access-control-request-method": "GET" } }),
      g.post("/auth/email/start", { email: 42 }),
      g.get("/map", { headers: { accept: "text/html" } }),
      g.get("/api/nothing-here"),
      openSocket(g.url),
      g.get("/api/openapi.json"),
    ]);
    expect(mounted()).toBe(true);
    expect(stations.status).toBe(200);
    expect(Array.isArray(((await stations.json()) as { stations: unknown[] }).stations)).toBe(true);
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
    expect(badBody.status).toBe(400);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: string }).error).toBe("not_found");
    expect(socket).toBe("open");
    const paths = Object.keys(((await docs.json()) as { paths: Record<string, unknown> }).paths);
    expect(paths).toContain("/api/stations");
    expect(paths).toContain("/health");

    // once mounted, Bun's own route table holds them: the same answers again
    expect((await g.get("/api/stations")).status).toBe(200);
    expect((await g.get("/api/nothing-here")).status).toBe(404);
  });

  test("whoever reads the app's routes or hands it a request finds every route", async () => {
    running = await startInProcess();
    const mounted = watchMounted(running.gw);
    const paths = running.gw.app.routes.map((r: { path: string }) => r.path);
    expect(mounted()).toBe(true);
    expect(paths).toContain("/api/stations");
    expect(paths).toContain("/api/openapi.json");

    running = (await running.stop(), await startInProcess());
    const r = await running.gw.app.handle(new Request("http://gateway.test/api/stations"));
    expect(r.status).toBe(200);
  });

  test("a serving gateway mounts them by itself once start-up is over, without a request", async () => {
    const dataDir = tmpDir();
    const config = configFor(dataDir, { PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "error", KISS_PORTS: "off" });
    served = await startGateway({ config, log: createLogger("error") });
    const mounted = watchMounted(served);
    expect(mounted()).toBe(false);
    // the cron is armed a second after HTTP serves (hosts/gateway.ts), and start-up is over then
    for (let i = 0; i < 40 && !mounted(); i++) await Bun.sleep(100);
    expect(mounted()).toBe(true);
    expect((await fetch(`${served.url}/api/stations`)).status).toBe(200);
  });
});
