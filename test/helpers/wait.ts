/**
 * The one wait of the test suite: polls `cond` until it returns something
 * truthy (which it then returns) and throws, naming what it waited for, when
 * the time runs out (`what` may be a function, for a message worth making only
 * then). Never gives up silently.
 *
 *   const msg = await waitFor(() => inbox.find((m) => m.to === "N0CALL"), "the message to N0CALL");
 */
export async function waitFor<T>(
  cond: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  what: string | (() => string) = "the condition",
  opts: { timeoutMs?: number; everyMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 10_000);
  for (;;) {
    const v = await cond();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${opts.timeoutMs ?? 10_000} ms waiting for ${typeof what === "function" ? what() : what}`);
    await Bun.sleep(opts.everyMs ?? 20);
  }
}
