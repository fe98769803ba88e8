/**
 * The APRS-IS passcode: a 15-bit hash of the base callsign (no SSID), the
 * well-known scheme every APRS-IS client uses to log in as a verified station.
 *
 *   aprsIsPasscode("N0CALL-10") // 13023
 */
export function aprsIsPasscode(call: string): number {
  const base = call.toUpperCase().split("-")[0]!;
  let hash = 0x73e2;
  for (let i = 0; i < base.length; i += 2) {
    hash ^= base.charCodeAt(i) << 8;
    if (i + 1 < base.length) hash ^= base.charCodeAt(i + 1);
  }
  return hash & 0x7fff;
}
