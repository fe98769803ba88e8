/**
 * The interface's language: i18next with one JSON file per language beside
 * this one (en.json is the source; a key missing in another file falls back
 * to English). Plurals follow Intl.PluralRules (`key_one`, `key_other`),
 * numbers and dates go through Intl in the chosen locale.
 *
 * The language is the visitor's choice (localStorage, and a signed-in user's
 * /api/prefs `lang`), else the first of navigator.languages that a file
 * exists for, else English. To add a language: a file `xx.json` here and its
 * line in LANGUAGES (docs/operating.md).
 */
import i18next from "i18next";
import en from "./en.json";
import de from "./de.json";
import es from "./es.json";

/** Every language the interface comes in, by its BCP 47 code. */
export const LANGUAGES: Record<string, Record<string, unknown>> = { en, de, es };
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

/** A fresh i18next over the files (synchronous: the resources are bundled). */
export function makeI18n(lng: string, resources: Record<string, Record<string, unknown>> = LANGUAGES) {
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

const i18n = makeI18n(stored() ?? pickLanguage(browserLanguages()));
if (typeof document !== "undefined") document.documentElement.lang = i18n.language;

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

/** Switches the language, remembers it in this browser, and redraws. */
export function setLanguage(l: string, remember = true) {
  if (!(l in LANGUAGES) || l === i18n.language) return;
  if (remember)
    try {
      localStorage.setItem(STORED, l);
    } catch {
      /* private mode: for this visit only */
    }
  i18n.changeLanguage(l);
  if (typeof document !== "undefined") document.documentElement.lang = l;
  localeChanged();
}

/** The name a language gives itself ("Deutsch"), from its own file. */
export const languageName = (l: string) => tf("language.name", { lng: l });

/** A number in the chosen locale ("1.234,5" in German). */
export const fmtNumber = (n: number, opts?: Intl.NumberFormatOptions) => new Intl.NumberFormat(i18n.language, opts).format(n);

/** A date and time in the chosen locale and the visitor's time zone. */
export const fmtDateTime = (ms: number, opts: Intl.DateTimeFormatOptions = { dateStyle: "medium", timeStyle: "short" }) =>
  new Intl.DateTimeFormat(i18n.language, opts).format(new Date(ms));

/** A date alone, in the chosen locale. */
export const fmtDate = (ms: number) => fmtDateTime(ms, { dateStyle: "medium" });
