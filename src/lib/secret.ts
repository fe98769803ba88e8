/** Shared secrets and API keys: compared in constant time, stored hashed. */
import { createHash, timingSafeEqual } from "node:crypto";

/** Secrets compared in constant time, whatever their lengths. */
export function sameSecret(given: string | null | undefined, expected: string | null | undefined): boolean {
  if (!given || !expected) return false;
  const a = createHash("sha256").update(given).digest();
  const b = createHash("sha256").update(expected).digest();
  return timingSafeEqual(a, b);
}

/** How an API key is stored (api_keys.key_hash): SHA-256, base64url. */
export const hashApiKey = (k: string) => createHash("sha256").update(k).digest("base64url");
