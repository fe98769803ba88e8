/**
 * The server's own words (e-mails, the pages it draws itself such as /tls)
 * in the reader's language: one JSON file per language beside this one, as
 * the web app has in ui/i18n (en.json is the source; a key missing in another
 * file falls back to English). The language is the account's preference
 * (`lang` in /api/prefs) where there is an account, else the request's
 * Accept-Language, else English.
 */
import i18next from "i18next";
import en from "./en.json";
import de from "./de.json";
import es from "./es.json";

const FILES: Record<string, Record<string, unknown>> = { en, de, es };
export const SERVER_LANGUAGES = Object.keys(FILES);

// made at the first message drawn, not in every start's path to its first answer
let i18n: ReturnType<typeof i18next.createInstance> | null = null;
function instance() {
  if (i18n) return i18n;
  i18n = i18next.createInstance();
  i18n.init({
    lng: "en",
    fallbackLng: "en",
    resources: Object.fromEntries(Object.entries(FILES).map(([k, v]) => [k, { translation: v }])),
    interpolation: { escapeValue: false },
    initAsync: false,
  });
  return i18n;
}

export type Translate = (key: string, vars?: Record<string, unknown>) => string;

/** The words of one language (English for one without a file). */
export function translator(lang: string): Translate {
  return instance().getFixedT(SERVER_LANGUAGES.includes(lang) ? lang : "en") as unknown as Translate;
}

/** The best language of an Accept-Language header ("de-AT,de;q=0.9,en;q=0.5" → "de"); English when none fits. */
export function fromAcceptLanguage(header: string | null | undefined): string {
  if (!header) return "en";
  const ranked = header
    .split(",")
    .map((part, i) => {
      const [tag = "", ...params] = part.trim().split(";");
      const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find(Boolean);
      return { tag: tag.trim().toLowerCase(), q: q === undefined ? 1 : Number(q), i };
    })
    .filter((x) => x.tag && x.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i);
  for (const { tag } of ranked) {
    const base = tag.split("-")[0]!;
    if (SERVER_LANGUAGES.includes(tag)) return tag;
    if (SERVER_LANGUAGES.includes(base)) return base;
  }
  return "en";
}

/** The language a message to an account is written in: its saved choice, else English. */
export function accountLanguage(prefs: Record<string, unknown> | null | undefined): string {
  const l = prefs?.lang;
  return typeof l === "string" && SERVER_LANGUAGES.includes(l) ? l : "en";
}
