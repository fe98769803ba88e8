/**
 * The interface's words and units without a browser: plurals in each
 * language, the language picked from the browser's list, English for a key
 * a language's file lacks (the real files), and distances and speeds in the
 * three unit systems.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { LANGUAGE_NAMES, LANGUAGES, makeI18n, pickLanguage } from "../../ui/i18n/i18n.ts";
import { formatDistance, formatQ, Q } from "../../ui/components/units.ts";
import { ROOT } from "../helpers/paths.ts";

const file = (l: string) => JSON.parse(readFileSync(join(ROOT, "ui/i18n", `${l}.json`), "utf8")) as Record<string, Record<string, string>>;
/** i18next over the real files */
const words = (l: string) => makeI18n(l, { en: file("en"), [l]: file(l) });

describe("languages", () => {
  test("plurals follow each language's rules", () => {
    const en = words("en");
    const de = words("de");
    const es = words("es");
    expect(en.t("offlineBar.waiting", { count: 1 })).toBe("1 field note waiting to be sent");
    expect(en.t("offlineBar.waiting", { count: 3 })).toBe("3 field notes waiting to be sent");
    expect(de.t("offlineBar.waiting", { count: 1 })).toBe("1 Feldnotiz wartet auf den Versand");
    expect(de.t("offlineBar.waiting", { count: 2 })).toBe("2 Feldnotizen warten auf den Versand");
    expect(es.t("time.years", { count: 1 })).toBe("1 año");
    expect(es.t("time.years", { count: 5 })).toBe("5 años");
    expect(de.t("time.ago", { span: de.t("time.d", { count: 3 }) })).toBe("vor 3 Tagen");
  });

  test("the browser's first language with a file, its region ignored; else English", () => {
    expect(pickLanguage(["de-AT", "en"])).toBe("de");
    expect(pickLanguage(["fr-FR", "es-MX"])).toBe("es");
    expect(pickLanguage(["fr", "ja"])).toBe("en");
    expect(pickLanguage([])).toBe("en");
    expect(Object.keys(LANGUAGES)).toEqual(["en", "de", "es"]);
  });

  test("every file names its language, and a key missing from one falls back to English", () => {
    // the picker's names are the files' own
    for (const l of Object.keys(LANGUAGES)) expect(file(l).language!.name).toBe(LANGUAGE_NAMES[l]!);
    const en = file("en");
    const de = file("de");
    // the real German file less one of its keys: the English words show
    const { noPosition, ...rest } = de.station!;
    expect(noPosition).toBe("Keine Position gehört.");
    const i18n = makeI18n("de", { en, de: { ...de, station: rest } });
    expect(i18n.t("station.noPosition")).toBe(en.station!.noPosition!);
    expect(i18n.t("station.speed")).toBe("Geschwindigkeit");
    // and a language with no file is English
    expect(makeI18n("fr").t("nav.map")).toBe("Map");
  });
});

describe("units", () => {
  test("distances in metric, imperial and nautical", () => {
    expect(formatDistance(350, "metric")).toBe("350 m");
    expect(formatDistance(12_400, "metric")).toBe("12.4 km");
    expect(formatDistance(1_240_000, "metric")).toBe("1240 km");
    expect(formatDistance(250, "imperial")).toBe("820 ft");
    expect(formatDistance(5_150, "imperial")).toBe("3.2 mi");
    expect(formatDistance(350, "nautical")).toBe("0.19 NM");
    expect(formatDistance(23_000, "nautical")).toBe("12.4 NM");
    expect(formatDistance(350, null)).toBe("350 m");
    // the compass's finer steps, for walking to a cache
    expect(formatDistance(1_234, "metric", true)).toBe("1.23 km");
    expect(formatDistance(1_234, "metric")).toBe("1.2 km");
    expect(formatDistance(5_150, "imperial", true)).toBe("3.20 mi");
  });

  test("speeds and readings: knots for nautical, both systems until one is chosen", () => {
    expect(formatQ(74, Q.speed, "nautical")).toBe("40 kn");
    expect(formatQ(74, Q.speed, "imperial")).toBe("46 mph");
    expect(formatQ(74, Q.speed, null)).toBe("74 km/h (46 mph)");
    expect(formatQ(21.5, Q.temp, "nautical")).toBe("21.5 °C");
    expect(formatQ(21.5, Q.temp, "imperial")).toBe("71 °F");
    expect(formatQ(381, Q.altitude, null)).toBe("381 m (1250 ft)");
  });
});
