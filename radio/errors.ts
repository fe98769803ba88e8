/**
 * Typed errors of the radio library. Decoders never throw: they return a
 * `Result` whose error carries one of these codes. Encoders throw a
 * `RadioError` when handed something that cannot go on the air (a bug in the
 * caller, not hostile input).
 */

export type RadioErrorCode =
  // KISS
  | "kiss-bad-escape" // FESC followed by something other than TFEND/TFESC
  | "kiss-too-long" // a frame grew past the decoder's limit before its FEND
  | "kiss-bad-command" // a command byte this library does not know
  | "kiss-bad-value" // a command value out of range
  // AX.25 addresses and frames
  | "ax25-bad-address" // a callsign or SSID that AX.25 cannot carry
  | "ax25-too-short" // fewer bytes than two addresses and a control field
  | "ax25-address-unterminated" // no address has the extension bit set
  | "ax25-too-many-digis" // more than 8 digipeaters
  | "ax25-bad-control" // a control field that names no frame type
  | "ax25-missing-pid" // an I or UI frame with no PID byte
  | "ax25-unexpected-info" // an info field on a frame type that carries none
  | "ax25-bad-frame" // a frame object that cannot be encoded
  // TNC2 text
  | "tnc2-syntax" // not SRC>DST[,PATH]:info
  | "tnc2-not-ui" // only UI frames with PID 0xF0 convert to TNC2
  // NET/ROM
  | "netrom-not-nodes" // not a NODES broadcast (signature byte)
  | "netrom-bad-length" // not 7 + 21*n bytes
  | "netrom-bad-alias" // an alias with characters NET/ROM cannot carry
  | "netrom-bad-entry" // a destination or neighbour that is not an AX.25 address
  | "netrom-bad-packet" // a NET/ROM layer 3/4 packet too short, or with bad calls or data
  | "netrom-unknown-op" // a transport opcode other than 1-6
  // Configuration
  | "config-bad-port" // a KISS_PORTS entry that is not tcp://HOST:PORT or serial:PATH[@BAUD]
  | "config-bad-call"; // a RADIO_CALL that AX.25 cannot carry

export class RadioError extends Error {
  constructor(
    readonly code: RadioErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "RadioError";
  }
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: RadioError };

export const ok = <T>(value: T): Result<T> => ({ ok: true, value });
export const fail = (code: RadioErrorCode, message: string): { ok: false; error: RadioError } => ({
  ok: false,
  error: new RadioError(code, message),
});
