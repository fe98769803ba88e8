/**
 * Device or software from the destination ("tocall"), for the common ones.
 * Longest prefix wins. A short list on purpose: the registry shows it as a
 * hint, nothing depends on it.
 */
const TOCALLS: Array<[string, string]> = [
  ["APZSVC", "svc-gateway"],
  ["APK003", "Kenwood TH-D72"],
  ["APK004", "Kenwood TH-D74"],
  ["APK005", "Kenwood TH-D75"],
  ["APK0", "Kenwood TH-D7"],
  ["APK1", "Kenwood TM-D700"],
  ["APDW", "Dire Wolf"],
  ["APDR", "APRSdroid"],
  ["APAND", "APRSdroid"],
  ["APWW", "APRSIS32"],
  ["APU2", "UI-View"],
  ["APX", "Xastir"],
  ["APRX", "aprx"],
  ["APAGW", "AGWtracker"],
  ["APOT", "OpenTracker"],
  ["APTT", "TinyTrak"],
  ["APMI", "Microsat"],
  ["APNU", "UIDIGI"],
  ["APLRG", "LoRa APRS iGate"],
  ["APLRT", "LoRa APRS tracker"],
  ["APJI", "jAPRSIgate"],
  ["APY", "Yaesu"],
  ["APBPQ", "BPQ32"],
  ["APMG", "PiGate"],
  ["APIN", "PinPoint"],
  ["APLG", "LoRa gateway"],
];
TOCALLS.sort((a, b) => b[0].length - a[0].length);

/** Answers by destination: a feed repeats a few hundred tocalls, and the prefix walk ran for every packet. */
const seen = new Map<string, string | null>();

export function deviceFromTocall(dst: string): string | undefined {
  if (!dst.startsWith("AP")) return undefined;
  const known = seen.get(dst);
  if (known !== undefined) return known ?? undefined;
  let device: string | null = null;
  for (const [prefix, name] of TOCALLS) {
    if (dst.startsWith(prefix)) {
      device = name;
      break;
    }
  }
  if (seen.size >= 4096) seen.clear();
  seen.set(dst, device);
  return device ?? undefined;
}
