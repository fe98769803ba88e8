/**
 * One error shape for every 4xx/5xx: `{ "error": code, "message": text }`.
 */
import { AppError } from "../lib/errors.ts";
import { describeFailure, type FailureLike } from "../lib/schema.ts";
import type { Logger } from "../lib/log.ts";
import { DISK_FULL_MESSAGE, isDiskFull, reportDiskFull } from "../core/store/disk-full.ts";

export interface ErrorBody {
  error: string;
  message: string;
  [k: string]: unknown;
}

export function errorResponse(status: number, body: ErrorBody, headers?: Record<string, string>): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });
}

/**
 * An Elysia/TypeBox validation failure as the one error shape, naming the
 * failing field (`field: "body.name"`) without echoing schemas. A body of the
 * wrong kind altogether (not an object where one is declared) is `bad_body`.
 */
function validationBody(error: unknown): ErrorBody {
  const e = error as {
    type?: string;
    value?: unknown;
    validator?: { schema?: { type?: string } };
    all?: FailureLike[];
  };
  const where = e.type ?? "request";
  const plainObject = typeof e.value === "object" && e.value !== null && !Array.isArray(e.value) && !ArrayBuffer.isView(e.value);
  if (where === "body" && e.validator?.schema?.type === "object" && !plainObject) {
    return { error: "bad_body", message: "body: expected a JSON object", field: "body" };
  }
  return { ...describeFailure(where, e.all?.[0]) };
}

/** Maps anything thrown by a route to the error shape. */
export function toErrorResponse(
  code: string | number,
  error: unknown,
  log: Logger,
  path: string,
  dataDir = "the data directory",
): { status: number; body: ErrorBody } {
  // Elysia wraps what a parse hook throws in its own ParseError.
  const cause = (error as { cause?: unknown })?.cause;
  if (code === "PARSE" && cause instanceof AppError) error = cause;
  if (error instanceof AppError) {
    return { status: error.status, body: { error: error.code, message: error.message, ...error.details } };
  }
  if (isDiskFull(error)) {
    reportDiskFull(log, dataDir, path);
    return { status: 507, body: { error: "disk_full", message: DISK_FULL_MESSAGE } };
  }
  switch (code) {
    case "NOT_FOUND":
      return { status: 404, body: { error: "not_found", message: `nothing at ${path}` } };
    case "PARSE":
      return { status: 400, body: { error: "bad_body", message: "the request body could not be parsed" } };
    case "VALIDATION":
      return { status: 400, body: validationBody(error) };
    case "INVALID_COOKIE_SIGNATURE":
      return { status: 400, body: { error: "bad_cookie", message: "the cookie signature is invalid" } };
    default: {
      const status = typeof (error as { status?: unknown })?.status === "number" ? (error as { status: number }).status : 500;
      if (status >= 400 && status < 500) {
        return { status, body: { error: "bad_request", message: String((error as Error)?.message ?? "bad request") } };
      }
      log.error("http", `unhandled error on ${path}`, { error: String((error as Error)?.stack ?? error) });
      return { status: 500, body: { error: "internal", message: "something went wrong on the server; the operator can find details in the log" } };
    }
  }
}
