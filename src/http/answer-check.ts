/**
 * Answers held to their declarations. With SVC_CHECK_ANSWERS=1 (the test
 * suite sets it), every JSON answer with a 2xx status is checked, as the
 * client receives it, against the schema its route declares for that status
 * (`answers()` in `detail.responses`, openapi.ts). An answer that fails it, or a
 * JSON answer the route declares nothing for, becomes a 500 that names the
 * route and the first failure, so any test that reaches the route fails.
 *
 * Off in service: a map of 2,000 caches would pay for the check on every request.
 */
import type { TSchema } from "@sinclair/typebox";
import { check } from "../lib/schema.ts";
import { hooksOf, type RouteLike } from "./openapi.ts";

type Declared = Map<string, Record<string, { content?: Record<string, { schema?: unknown }> }>>;

export const answersChecked = (): boolean => (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.SVC_CHECK_ANSWERS === "1";

export type AnswerCheck = (method: string, route: string, status: number, value: unknown) => { error: string; message: string } | null;

/**
 * A check for the app's answers: null when the answer passes or is not JSON,
 * else what is wrong. `routes`: the routes mounted so far (read again once
 * more are: app.ts mounts some when first needed).
 */
export function answerChecker(routes: () => RouteLike[]): AnswerCheck {
  let declared: Declared | null = null;
  let seen = 0;
  const declaredOf = (): Declared => {
    const list = routes();
    if (!declared || list.length !== seen) {
      declared = new Map(list.map((r) => [`${r.method} ${r.path}`, (hooksOf(r).detail?.responses ?? {}) as never]));
      seen = list.length;
    }
    return declared;
  };
  return (method, route, status, value) => {
    if (status < 200 || status > 299 || value === undefined || value === null || typeof value !== "object" || value instanceof Response) return null;
    if (value instanceof Uint8Array || value instanceof ArrayBuffer || value instanceof Blob || value instanceof ReadableStream) return null;
    const where = `answer of ${method} ${route} (${status})`;
    const responses = declaredOf().get(`${method} ${route}`);
    const schema = responses?.[String(status)]?.content?.["application/json"]?.schema as TSchema | undefined;
    if (!schema) return { error: "undeclared_answer", message: `${where}: the route declares no JSON answer for this status` };
    try {
      check(schema, JSON.parse(JSON.stringify(value)), "answer");
      return null;
    } catch (e) {
      return { error: "answer_mismatch", message: `${where}: ${(e as Error).message}` };
    }
  };
}
