/**
 * The one error type domain code throws for a request it must refuse. The HTTP
 * layer turns it into `{ "error": code, "message": message }` with `status`.
 * Domain code never builds responses itself.
 */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "AppError";
  }
}

export const badRequest = (code: string, message: string, details?: Record<string, unknown>) => new AppError(400, code, message, details);
export const unauthorized = (message = "sign in first") => new AppError(401, "unauthorized", message);
export const forbidden = (message: string, code = "forbidden") => new AppError(403, code, message);
export const notFound = (what: string) => new AppError(404, "not_found", `${what} not found`);
export const conflict = (code: string, message: string) => new AppError(409, code, message);
export const unprocessable = (code: string, message: string, details?: Record<string, unknown>) => new AppError(422, code, message, details);
export const tooLarge = (limit: number) => new AppError(413, "body_too_large", `request body is larger than ${limit} bytes`);

/**
 * A listener the gateway starts could not bind: a clean start-up error that
 * names the listener (`what`, e.g. "the FBB forwarding listener on 0.0.0.0:6300").
 */
export class ListenError extends Error {
  override name = "ListenError";
  constructor(what: string, cause: unknown, hint?: string) {
    const code = (cause as { code?: string } | null)?.code;
    const text = String((cause as Error | null)?.message ?? cause);
    const inUse = code === "EADDRINUSE" || /EADDRINUSE|in use/i.test(text);
    super(`${what} could not listen: ${inUse ? "the port is already in use" : text}${hint ? `; ${hint}` : ""}`);
  }
}

/**
 * The HTTPS listener cannot start with what the settings name (TLS_CERT or
 * TLS_KEY unreadable, not PEM, or not a pair): a clean start-up error naming
 * the file, as ListenError names a port.
 */
export class TlsSetupError extends Error {
  override name = "TlsSetupError";
}
