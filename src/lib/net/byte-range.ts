/**
 * One HTTP `Range: bytes=` range against a body of a known size, as the
 * gateway's map archives answer it (src/tiles/routes.ts) and as the web app's
 * service worker answers it from the byte ranges saved for offline use.
 */

export type ByteRange = { start: number; end: number } | "unsatisfiable" | null;

/**
 * One `bytes=` range against a body of `size` bytes. null: no usable Range
 * header (absent, another unit, several ranges): the whole body is sent.
 */
export function parseRange(header: string | null, size: number): ByteRange {
  if (!header) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === "" && m[2] === "")) return null;
  if (m[1] === "") {
    const n = Number(m[2]);
    if (n === 0 || size === 0) return "unsatisfiable";
    return { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === "" ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (m[2] !== "" && Number(m[2]) < start) return null;
  if (start >= size) return "unsatisfiable";
  return { start, end };
}
