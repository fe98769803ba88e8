/**
 * The interface's language: i18next with one JSON file per language beside
 * this one (en.json is the source; a key missing in another file falls back
 * to English). Plurals follow Intl.PluralRules (`key_one`, `key_other`),
 * numbers and dates go through Intl in the chosen locale.
 *
 * The language is the visitor's choice (localStorage, and a signed-in user's
 * /api/prefs `lang`), else the first of navigator.languages that a file
 * exists for, else English. To add a language: a file `xx.json` here, its
 * import in LANGUAGES and its name in LANGUAGE_NAMES (docs/operating.md).
 */
import i18next from "i18next";
import en from "./en.json";
// Only English (the source and the fallback) is in the app's script; the others are files of their own
// beside it, fetched when chosen (and precached by the service worker), so a language added costs the others nothing.
import de from "./de.json" with { type: "file" };
import es from "./es.json" with { type: "file" };

type Words = Record<string, unknown>;
/** Every language the interface comes in, by its BCP 47 code: its words, or the address of its file. */
export const LANGUAGES: Record<string, Words | string> = { en, de: de as unknown as string, es: es as unknown as string };
export const SOURCE = "en";
const STORED = "svc.lang";

/** The first of the browser's languages that has a file ("de-AT" takes de), else English. */
export function pickLanguage(wanted: readonly string[], have: readonly string[] = Object.keys(LANGUAGES)): string {
  for (const w of wanted) {
    const l = w.toLowerCase();
    if (have.includes(l)) return l;
    const base = l.split("-")[0]!;
    if (have.includes(base)) return base;
  }
  return SOURCE;
}

function stored(): string | null {
  try {
    const s = typeof localStorage !== "undefined" ? localStorage.getItem(STORED) : null;
    return s && s in LANGUAGES ? s : null;
  } catch {
    return null;
  }
}

const browserLanguages = (): string[] => (typeof navigator !== "undefined" ? [...(navigator.languages ?? []), navigator.language].filter(Boolean) : []);

/** A fresh i18next over the words given (synchronous); the languages without words fall back to English. */
export function makeI18n(lng: string, resources: Record<string, Words> = { en }) {
  const inst = i18next.createInstance();
  inst.init({
    lng,
    fallbackLng: SOURCE,
    resources: Object.fromEntries(Object.entries(resources).map(([k, v]) => [k, { translation: v }])),
    interpolation: { escapeValue: false },
    returnNull: false,
    initAsync: false,
  });
  return inst;
}

const i18n = makeI18n(SOURCE);

/** Fetches a language's file (once) into i18next; false when it cannot be had (offline and never fetched). */
async function load(l: string): Promise<boolean> {
  if (i18n.hasResourceBundle(l, "translation")) return true;
  const src = LANGUAGES[l];
  if (src === undefined) return false;
  try {
    const words = typeof src === "string" ? ((await (await fetch(src)).json()) as Words) : src;
    i18n.addResourceBundle(l, "translation", words);
    return true;
  } catch {
    return false;
  }
}

/** Before the app draws: the visitor's language, its file fetched (English at once). */
export async function startLanguage(): Promise<void> {
  const l = stored() ?? pickLanguage(browserLanguages());
  if (l !== SOURCE && (await load(l))) await i18n.changeLanguage(l);
  if (typeof document !== "undefined") document.documentElement.lang = i18n.language;
}

/** The language in use. */
export const lang = () => i18n.language;

/** A translated string; `vars.count` picks the plural form. */
export const t = (key: string, vars?: Record<string, unknown>): string => tf(key, vars);
const tf = i18n.t.bind(i18n) as unknown as (key: string, vars?: Record<string, unknown>) => string;

const listeners = new Set<() => void>();
/** Called after the language or the units change (the app draws itself again). */
export function onLocaleChange(f: () => void): () => void {
  listeners.add(f);
  return () => listeners.delete(f);
}
export const localeChanged = () => {
  for (const f of listeners) f();
};

/** Switches the language (its file fetched first), remembers it in this browser, and redraws. */
export async function setLanguage(l: string, remember = true) {
  if (!(l in LANGUAGES) || l === i18n.language) return;
  if (remember)
    try {
      localStorage.setItem(STORED, l);
    } catch {
      /* private mode: for this visit only */
    }
  if (!(await load(l))) return;
  await i18n.changeLanguage(l);
  if (typeof document !== "undefined") document.documentElement.lang = l;
  localeChanged();
}

/** The name a language gives itself ("Deutsch"), written in each file; the picker shows these before any is fetched. */
export const LANGUAGE_NAMES: Record<string, string> = { en: "English", de: "Deutsch", es: "Español" };
export const languageName = (l: string) => LANGUAGE_NAMES[l] ?? l;

/** A number in the chosen locale ("1.234,5" in German). */
export const fmtNumber = (n: number, opts?: Intl.NumberFormatOptions) => new Intl.NumberFormat(i18n.language, opts).format(n);

/** A date and time in the chosen locale and the visitor's time zone. */
export const fmtDateTime = (ms: number, opts: Intl.DateTimeFormatOptions = { dateStyle: "medium", timeStyle: "short" }) =>
  new Intl.DateTimeFormat(i18n.language, opts).format(new Date(ms));

/** A date alone, in the chosen locale. */
export const fmtDate = (ms: number) => fmtDateTime(ms, { dateStyle: "medium" });
