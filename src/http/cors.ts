/**
 * Every response is CORS-wrapped (SPEC 9). The public API is readable from any
 * origin; credentials are never allowed cross-origin, so the session cookie
 * (SameSite) only ever works on this instance's own pages.
 */
export const CORS_HEADERS: Record<string, string> = {
  "access-control-allow-origin": "*",
  "access-control-expose-headers": "ratelimit-limit, ratelimit-remaining, ratelimit-reset, retry-after, location, content-disposition",
};

const BASE_HEADERS: Record<string, string> = {
  ...CORS_HEADERS,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
};

export function applyBaseHeaders(headers: Record<string, string | number>): void {
  for (const k in BASE_HEADERS) headers[k] = BASE_HEADERS[k]!;
}

/** The answer to any OPTIONS request: 204 with what a browser preflight needs. */
export function preflight(request: Request): Response {
  const wantHeaders = request.headers.get("access-control-request-headers");
  return new Response(null, {
    status: 204,
    headers: {
      ...BASE_HEADERS,
      "access-control-allow-methods": "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS",
      "access-control-allow-headers": wantHeaders ?? "content-type, authorization, x-api-key",
      "access-control-max-age": "86400",
      vary: "origin, access-control-request-headers",
    },
  });
}
