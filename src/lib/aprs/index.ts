/** The pure APRS core: decode, encode, telemetry definitions, APRS-IS passcode. No I/O. */
export { decode, MAX_LINE } from "./decode.ts";
export * from "./types.ts";
export * from "./encode.ts";
export { applyTelemetry, mergeDefinitions, type TelemetryChannel } from "./telemetry.ts";
export { aprsIsPasscode } from "./passcode.ts";
