/**
 * The language and units picker: in the menu for signed-out visitors and on
 * the account page. The choice is kept in this browser and, signed in, in the
 * account's preferences (/api/prefs `lang`, `units`), which a later visit on
 * another device takes up (syncAccountPrefs).
 */
import { api } from "../api.ts";
import { isUnitSystem, setUnits, UNIT_SYSTEMS, units, type UnitSystem } from "../components/units.ts";
import { LANGUAGES, lang, languageName, setLanguage, t } from "./i18n.ts";

type Prefs = Record<string, unknown>;

let saving: Promise<unknown> = Promise.resolve();
/** Saves a change into the signed-in account's preferences (they are replaced whole, so read first; one save at a time). */
function savePrefs(patch: Prefs): Promise<unknown> {
  saving = saving
    .catch(() => {})
    .then(async () => {
      const { prefs } = await api<{ prefs: Prefs }>("/api/prefs");
      await api("/api/prefs", { method: "PUT", json: { ...prefs, ...patch } });
    });
  return saving.catch(() => {});
}

let synced = false;
/** Once a visit, signed in: the account's saved language and units win over this browser's. */
export async function syncAccountPrefs() {
  if (synced) return;
  synced = true;
  const { prefs } = await api<{ prefs: Prefs }>("/api/prefs").catch(() => ({ prefs: {} as Prefs }));
  if (isUnitSystem(prefs.units)) setUnits(prefs.units);
  if (typeof prefs.lang === "string" && prefs.lang in LANGUAGES) setLanguage(prefs.lang);
}

export function LocalePicker({ signedIn, compact }: { signedIn: boolean; compact?: boolean }) {
  const save = (patch: Prefs) => {
    if (signedIn) savePrefs(patch);
  };
  return (
    // the menu closes on a click inside it; not on these
    // biome-ignore lint/a11y/noStaticElementInteractions: only keeps the click from the menu
    <div class={compact ? "locale-picker compact" : "locale-picker"} data-testid="locale-picker" onClick={(e) => e.stopPropagation()}>
      <label>
        {t("prefs.language")}{" "}
        <select
          data-testid="language-select"
          value={lang()}
          onChange={(e) => {
            const l = e.currentTarget.value;
            save({ lang: l });
            setLanguage(l);
          }}
        >
          {Object.keys(LANGUAGES).map((l) => (
            <option value={l} lang={l}>
              {languageName(l)}
            </option>
          ))}
        </select>
      </label>{" "}
      <label>
        {t("prefs.units")}{" "}
        <select
          data-testid="units-select"
          value={units() ?? ""}
          onChange={(e) => {
            const u = e.currentTarget.value as UnitSystem;
            save({ units: u });
            setUnits(u);
          }}
        >
          {units() === null && <option value="">{t("prefs.auto")}</option>}
          {UNIT_SYSTEMS.map((u) => (
            <option value={u}>{t(`prefs.${u}`)}</option>
          ))}
        </select>
      </label>
    </div>
  );
}
