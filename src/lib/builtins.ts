/**
 * Node built-ins that start-up does not need, loaded when first used.
 *
 * The executable is one bundle, and Bun hoists every static import of a
 * built-in to its top, so `import { gzipSync } from "node:zlib"` in a module
 * the gateway loads only on demand still loads node:zlib at every start.
 * Loading node:zlib, node:http, node:https and node:tls costs Bun about 20 ms
 * together; a gateway answering /health needs none of them.
 * `process.getBuiltinModule` is synchronous and invisible to the bundler.
 * fflate loads here on first use too (lib/deflate.ts says why).
 */
import type * as Deflate from "./deflate.ts";

export const zlib = (): typeof import("node:zlib") => process.getBuiltinModule("node:zlib");
export const tls = (): typeof import("node:tls") => process.getBuiltinModule("node:tls");
export const http = (): typeof import("node:http") => process.getBuiltinModule("node:http");
export const https = (): typeof import("node:https") => process.getBuiltinModule("node:https");
export const deflate = (): typeof Deflate => require("./deflate.ts") as typeof Deflate;
