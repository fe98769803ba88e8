/**
 * Amateur callsigns: a licensed base call (prefix, one digit, suffix) with an
 * optional AX.25 SSID 0-15. APRS source names that are not licensed calls
 * (objects, tactical names) are handled by the APRS layer, not here.
 */
const BASE = /^[A-Z0-9]{1,3}[0-9][A-Z0-9]{0,3}[A-Z]$/;

/** Upper-cases and trims; drops a `-0` SSID, which AX.25 treats as no SSID. */
export function normalizeCall(raw: string): string {
  const c = raw.trim().toUpperCase();
  return c.endsWith("-0") ? c.slice(0, -2) : c;
}

/** A licensed base call such as `N0CALL`, `VE3ABC`, `9A1A`, with no SSID. */
export function isBaseCallsign(raw: string): boolean {
  const c = raw.trim().toUpperCase();
  return c.length >= 3 && c.length <= 7 && BASE.test(c);
}

/** A base call with an optional `-SSID` (0..15), e.g. `N0CALL-9`. */
export function isCallsign(raw: string): boolean {
  const c = raw.trim().toUpperCase();
  const dash = c.indexOf("-");
  if (dash < 0) return isBaseCallsign(c);
  const ssid = c.slice(dash + 1);
  return isBaseCallsign(c.slice(0, dash)) && /^(?:[0-9]|1[0-5])$/.test(ssid);
}

/** `N0CALL-9` -> `N0CALL`. */
export function baseCall(call: string): string {
  const c = normalizeCall(call);
  const dash = c.indexOf("-");
  return dash < 0 ? c : c.slice(0, dash);
}
