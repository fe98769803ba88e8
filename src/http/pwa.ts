/**
 * What makes the web app installable and usable offline, made at build time
 * next to the bundle: the app icons (PNG, drawn here: no image files to keep
 * in step with the SVG favicon), the web app manifest, and the service worker
 * (ui/offline/sw.ts) compiled with the list of files it precaches and a
 * version that changes whenever any of them does.
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { deflate } from "../lib/builtins.ts";
import { concatBytes } from "../lib/net/bytes.ts";

export const SW_PATH = "/sw.js";
export const MANIFEST_PATH = "/manifest.webmanifest";

/** Server paths a browser may navigate to that are not the web app (besides ui.ts's NOT_UI and paths with an extension). */
const SERVER_PAGES = ["/health", "/privacy", "/source", "/outbox", "/updateweatherstation", "/v/", "/ingest", "/embed", "/tls"];

const ACCENT = [0x0b, 0x6e, 0x4f] as const;

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** One PNG chunk: length, type, data and the CRC of type and data. */
export function pngChunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const v = new DataView(out.buffer);
  v.setUint32(0, data.length);
  out.set(new TextEncoder().encode(type), 4);
  out.set(data, 8);
  v.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

/** A PNG file of these chunks (IHDR first, IDAT…): the signature, the chunks and IEND. */
export function pngFile(chunks: readonly Uint8Array[]): Uint8Array<ArrayBuffer> {
  return concatBytes([new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), ...chunks, pngChunk("IEND", new Uint8Array())]);
}

/** An 8-bit RGBA PNG of `size`×`size` pixels. */
function encodePng(size: number, rgba: Uint8Array): Uint8Array<ArrayBuffer> {
  const ihdr = new Uint8Array(13);
  const v = new DataView(ihdr.buffer);
  v.setUint32(0, size);
  v.setUint32(4, size);
  ihdr.set([8, 6, 0, 0, 0], 8);
  const raw = new Uint8Array(size * (size * 4 + 1));
  for (let y = 0; y < size; y++) raw.set(rgba.subarray(y * size * 4, (y + 1) * size * 4), y * (size * 4 + 1) + 1);
  // fflate loads here, not with this module (lib/deflate.ts says why)
  return pngFile([pngChunk("IHDR", ihdr), pngChunk("IDAT", deflate().zlibSync(raw, { level: 9 }))]);
}

/**
 * The brand mark ◈ (a diamond in a diamond) in white on the accent colour.
 * `maskable`: the background fills the square and the mark stays inside the
 * middle 80 % that every launcher mask keeps; else a rounded square.
 */
function drawIcon(size: number, maskable: boolean): Uint8Array<ArrayBuffer> {
  const px = new Uint8Array(size * size * 4);
  const S = 4; // samples per axis, for smooth edges
  const scale = maskable ? 0.3 : 0.36; // half-diagonal of the outer diamond, as a share of the size
  const radius = 0.18;
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      let bg = 0;
      let fg = 0;
      for (let sy = 0; sy < S; sy++) {
        for (let sx = 0; sx < S; sx++) {
          const u = (x + (sx + 0.5) / S) / size; // 0..1
          const w = (y + (sy + 0.5) / S) / size;
          let inBg = true;
          if (!maskable) {
            // rounded square
            const dx = Math.max(0, Math.abs(u - 0.5) - (0.5 - radius));
            const dy = Math.max(0, Math.abs(w - 0.5) - (0.5 - radius));
            inBg = dx * dx + dy * dy <= radius * radius;
          }
          if (!inBg) continue;
          bg++;
          const d = (Math.abs(u - 0.5) + Math.abs(w - 0.5)) / scale; // 1 at the outer diamond's edge
          if ((d <= 1 && d >= 0.78) || d <= 0.45) fg++;
        }
      }
      const i = (y * size + x) * 4;
      const a = bg / (S * S);
      const f = bg ? fg / bg : 0;
      px[i] = Math.round(ACCENT[0] + (255 - ACCENT[0]) * f);
      px[i + 1] = Math.round(ACCENT[1] + (255 - ACCENT[1]) * f);
      px[i + 2] = Math.round(ACCENT[2] + (255 - ACCENT[2]) * f);
      px[i + 3] = Math.round(255 * a);
    }
  }
  return encodePng(size, px);
}

const hash8 = (b: Uint8Array | string) => createHash("sha256").update(b).digest("hex").slice(0, 8);

export interface PwaFile {
  name: string;
  blob: Blob;
}

/**
 * Adds the icons, the manifest and the service worker to a built bundle, and
 * links the manifest and icons from index.html. `outputs` are the bundle's
 * files by name (index.html and the assets); `notUi`: path prefixes that are
 * never the web app.
 */
export async function addPwa(outputs: PwaFile[], opts: { assetPrefix: string; notUi: string[] }): Promise<PwaFile[]> {
  const icons: Array<PwaFile & { size: number; purpose: string }> = [];
  for (const [size, maskable] of [
    [192, false],
    [512, false],
    [512, true],
  ] as const) {
    const png = drawIcon(size, maskable);
    icons.push({
      name: `icon-${size}${maskable ? "-maskable" : ""}-${hash8(png)}.png`,
      blob: new Blob([png], { type: "image/png" }),
      size,
      purpose: maskable ? "maskable" : "any",
    });
  }
  const manifest = {
    name: "svc-gateway",
    short_name: "svc-gateway",
    description: "Geocaching and APRS stations on amateur radio: map, caches and field notes, also offline.",
    id: "/",
    start_url: "/map",
    scope: "/",
    display: "standalone",
    background_color: "#f6f7f9",
    theme_color: "#0b6e4f",
    icons: icons.map((i) => ({ src: opts.assetPrefix + i.name, sizes: `${i.size}x${i.size}`, type: "image/png", purpose: i.purpose })),
  };
  const manifestFile = { name: "manifest.webmanifest", blob: new Blob([JSON.stringify(manifest, null, 1)], { type: "application/manifest+json" }) };
  const head =
    `<link rel="manifest" href="${MANIFEST_PATH}" />` +
    `<link rel="apple-touch-icon" href="${opts.assetPrefix}${icons[0]!.name}" />` +
    `<meta name="theme-color" content="${manifest.theme_color}" />` +
    `<meta name="apple-mobile-web-app-capable" content="yes" />`;
  const files: PwaFile[] = [];
  for (const o of outputs) {
    if (o.name !== "index.html") files.push(o);
    else files.push({ name: o.name, blob: new Blob([(await o.blob.text()).replace("</head>", head + "</head>")], { type: "text/html;charset=utf-8" }) });
  }
  files.push(...icons, manifestFile);

  // The service worker precaches the page ("/"), every asset and the manifest; its version names them all.
  const precache = ["/", MANIFEST_PATH, ...files.filter((f) => f.name !== "index.html" && f.name !== manifestFile.name).map((f) => opts.assetPrefix + f.name)];
  const h = createHash("sha256");
  for (const f of files) {
    h.update(f.name);
    h.update(new Uint8Array(await f.blob.arrayBuffer()));
  }
  const version = h.digest("hex").slice(0, 12);
  const sw = await Bun.build({
    entrypoints: [join(import.meta.dir, "../../ui/offline/sw.ts")],
    minify: true,
    target: "browser",
    define: {
      SW_VERSION: JSON.stringify(version),
      SW_PRECACHE: JSON.stringify(precache),
      SW_NOT_UI: JSON.stringify([...opts.notUi, ...SERVER_PAGES]),
      "process.env.NODE_ENV": '"production"',
    },
  });
  if (!sw.success) throw new Error("service worker build failed:\n" + sw.logs.map(String).join("\n"));
  files.push({ name: "sw.js", blob: new Blob([await sw.outputs[0]!.text()], { type: "text/javascript;charset=utf-8" }) });
  return files;
}
