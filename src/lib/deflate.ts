/**
 * The DEFLATE functions the gateway uses, from fflate, in a module of their
 * own that users `require()` when they first compress or inflate
 * (lib/fed/compress.ts, http/pwa.ts): fflate builds DEFLATE's tables as its
 * module loads, tens of ms of an executable's start. Imported here by name, so
 * bundles keep only these (not fflate's Web Worker code, which a worker bundle
 * must not hold).
 */
export { deflateSync, Inflate, zlibSync } from "fflate";
