/**
 * The whole interface is translated (issue 33 item 11): no word a visitor reads
 * is written into a component as English. Every .tsx file under ui/ is parsed
 * (the TypeScript compiler's own parser) and each JSX text and each string
 * given to an attribute a person reads (placeholder, title, aria-label, alt,
 * label, and the app's own what/empty/hint props) must come from the
 * translation files, except names that are not words of a language (APRS,
 * callsigns, units, symbols). And every key of en.json is in de.json and
 * es.json, so a German or Spanish reader never meets an English fallback.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

const UI = join(import.meta.dir, "../../ui");
const READ_ATTRS = new Set(["placeholder", "title", "aria-label", "alt", "label", "what", "empty", "hint", "summary"]);
/** Texts that are the same in every language: names, abbreviations, symbols. */
const SAME_EVERYWHERE = new Set([
  "APRS",
  "APRS-IS",
  "BBS",
  "FBB",
  "KISS",
  "NET/ROM",
  "AX.25",
  "GPX",
  "KML",
  "ADIF",
  "RSS",
  "QR",
  "TNC",
  "SSID",
  "IGate",
  "OK",
  "svc-gateway",
  "Direwolf",
  "PMTiles",
  "OpenStreetMap",
  "Leaflet",
  "WebAuthn",
  "CoT",
  "SSE",
  "API",
  "ICS",
  "km",
  "m",
  "ft",
  "mi",
  "NM",
  "kn",
  "mph",
  "km/h",
  "hPa",
  "mm",
  "Hz",
  "kHz",
  "MHz",
  "dB",
  "°C",
  "°F",
]);

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith(".tsx") ? [join(dir, e.name)] : [],
  );
}

/** Does this text hold a word of a language (two letters in a row) that is not a name? */
function wordy(text: string): boolean {
  const s = text.replace(/\s+/g, " ").trim();
  if (!s || SAME_EVERYWHERE.has(s)) return false;
  // a callsign, a unit, a code or a key like "N0CALL-9", "km/h", "SVT…", "Ctrl+K"
  if (/^[A-Z0-9/+\-.…:#]+$/.test(s)) return false;
  return /\p{L}{2,}/u.test(s);
}

function untranslated(file: string, text = readFileSync(file, "utf8")): string[] {
  const src = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
  const found: string[] = [];
  const at = (n: ts.Node) => `${relative(UI, file)}:${src.getLineAndCharacterOfPosition(n.getStart(src)).line + 1}`;
  const visit = (n: ts.Node) => {
    if (ts.isJsxText(n) && wordy(n.text)) found.push(`${at(n)} text "${n.text.trim().slice(0, 60)}"`);
    if (ts.isJsxAttribute(n) && READ_ATTRS.has(n.name.getText(src)) && n.initializer) {
      const init = n.initializer;
      const lit = ts.isStringLiteral(init)
        ? init
        : ts.isJsxExpression(init) && init.expression && ts.isStringLiteralLike(init.expression)
          ? init.expression
          : null;
      if (lit && wordy(lit.text)) found.push(`${at(n)} ${n.name.getText(src)}="${lit.text.slice(0, 60)}"`);
    }
    // {"words"}, {x ? "yes" : "no"}, {x && "words"} among an element's children
    if (ts.isJsxExpression(n) && n.expression && !ts.isJsxAttribute(n.parent)) {
      for (const lit of shown(n.expression)) if (wordy(lit.text)) found.push(`${at(lit)} text "${lit.text.slice(0, 60)}"`);
    }
    ts.forEachChild(n, visit);
  };
  visit(src);
  return found;
}

/** The string literals an expression shows as it is: itself, a branch of a condition, a side of && || ??. */
function shown(e: ts.Expression): ts.StringLiteralLike[] {
  if (ts.isStringLiteralLike(e)) return [e];
  if (ts.isParenthesizedExpression(e)) return shown(e.expression);
  if (ts.isConditionalExpression(e)) return [...shown(e.whenTrue), ...shown(e.whenFalse)];
  if (
    ts.isBinaryExpression(e) &&
    [ts.SyntaxKind.AmpersandAmpersandToken, ts.SyntaxKind.BarBarToken, ts.SyntaxKind.QuestionQuestionToken].includes(e.operatorToken.kind)
  )
    return [...shown(e.left), ...shown(e.right)];
  return [];
}

/** Every key path of a nested words object, plural suffixes kept (each language has its own plural forms). */
function keys(o: unknown, prefix = ""): string[] {
  if (typeof o !== "object" || o === null) return [prefix];
  return Object.entries(o).flatMap(([k, v]) => keys(v, prefix ? `${prefix}.${k}` : k));
}
const base = (k: string) => k.replace(/_(zero|one|two|few|many|other)$/, "");

describe("the interface is translated", () => {
  test("no component writes English words a visitor reads: they come from the translation files", () => {
    const left = files(UI).flatMap((f) => untranslated(f));
    expect(left).toEqual([]);
  });

  test("German and Spanish have every key English has, and none it lacks", () => {
    const words = (l: string) => JSON.parse(readFileSync(join(UI, "i18n", `${l}.json`), "utf8"));
    const en = new Set(keys(words("en")).map(base));
    for (const l of ["de", "es"]) {
      const have = new Set(keys(words(l)).map(base));
      expect([...en].filter((k) => !have.has(k))).toEqual([]);
      expect([...have].filter((k) => !en.has(k))).toEqual([]);
    }
  });

  test("the check sees English written into a component, and passes names and translated words (a positive control)", () => {
    const probe = join(UI, "probe.tsx");
    const code = 'const a = <p title="Open the map">Nothing here yet <b>APRS</b> N0CALL-9 {t("x.y")} {ok ? "Saved" : "km"}</p>;';
    expect(untranslated(probe, code)).toEqual(['probe.tsx:1 title="Open the map"', 'probe.tsx:1 text "Nothing here yet"', 'probe.tsx:1 text "Saved"']);
  });
});
