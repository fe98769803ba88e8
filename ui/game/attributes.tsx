/**
 * Cache attributes in the web app, from the one table the server uses
 * (src/lib/cache-attributes.ts): the owner's editor on the hide form and the
 * cache edit (a chip per attribute, each press going unset → yes → no →
 * unset), the cache page's list, and the filter panel's "must have" choice.
 * Words, not symbols: headless Chromium has no emoji font.
 */
import { ATTRIBUTES, type CacheAttribute } from "../../src/lib/cache-attributes.ts";
import { t } from "../i18n/i18n.ts";
import { attrLabel, attrName } from "./labels.ts";
import "./attributes.css";

const yesNo = (inc: boolean) => (inc ? t("attrUi.yes") : t("attrUi.no"));

/** The cache page's list: "Dogs: yes", "Bicycles: no". */
export function AttributeList({ attributes }: { attributes: readonly CacheAttribute[] }) {
  if (!attributes.length) return null;
  return (
    <ul class="attr-chips" data-testid="attributes" aria-label={t("attrUi.title")}>
      {attributes.map((a) => (
        <li
          key={a.id}
          class={`attr-chip ${a.inc ? "attr-yes" : "attr-no"}`}
          data-attr={a.id}
          data-inc={a.inc ? "1" : "0"}
          title={`${attrName(a.id)}: ${yesNo(a.inc)}`}
        >
          <span class="attr-label">{attrLabel(a.id)}</span>
          <span class="attr-mark">{yesNo(a.inc)}</span>
        </li>
      ))}
    </ul>
  );
}

/** The owner's editor: every attribute as a chip; a press moves it unset → yes → no → unset. */
export function AttributeEditor({ value, onChange }: { value: readonly CacheAttribute[]; onChange: (v: CacheAttribute[]) => void }) {
  const at = new Map(value.map((a) => [a.id, a.inc]));
  const press = (id: number) => {
    const cur = at.get(id);
    const rest = value.filter((a) => a.id !== id);
    const next = cur === undefined ? [...rest, { id, inc: true }] : cur ? [...rest, { id, inc: false }] : rest;
    onChange(next.sort((a, b) => a.id - b.id));
  };
  return (
    <details class="attr-editor" data-testid="attr-editor" open={value.length > 0}>
      <summary>
        {t("attrUi.title")}
        {value.length ? ` ${t("attrUi.setCount", { count: value.length })}` : ""}: {t("attrUi.help")}
      </summary>
      <div class="attr-chips">
        {ATTRIBUTES.map((d) => {
          const inc = at.get(d.id);
          const state = inc === undefined ? "unset" : inc ? "yes" : "no";
          return (
            <button
              type="button"
              key={d.id}
              class={`attr-chip${inc === undefined ? "" : inc ? " attr-yes" : " attr-no"}`}
              data-attr={d.id}
              data-state={state}
              aria-label={`${attrName(d.id)}: ${inc === undefined ? t("attrUi.unset") : yesNo(inc)}`}
              title={attrName(d.id)}
              onClick={() => press(d.id)}
            >
              <span class="attr-label">{attrLabel(d.id)}</span>
              {inc !== undefined && <span class="attr-mark">{yesNo(inc)}</span>}
            </button>
          );
        })}
      </div>
    </details>
  );
}

/** The filter panel's choice: attributes a cache must have (yes), as `attr=` ids. */
export function AttributeFilter({ value, onChange }: { value: string | undefined; onChange: (attr: string | undefined) => void }) {
  const chosen = new Set((value ?? "").split(",").filter(Boolean).map(Number));
  const toggle = (id: number) => {
    const next = new Set(chosen);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    onChange(next.size ? [...next].sort((a, b) => a - b).join(",") : undefined);
  };
  return (
    <details class="attr-filter" data-testid="attr-filter">
      <summary>
        {t("attrUi.title")}
        {chosen.size ? ` (${chosen.size})` : ""}
      </summary>
      <div class="attr-chips">
        {ATTRIBUTES.map((d) => (
          <button
            type="button"
            key={d.id}
            class={`attr-chip${chosen.has(d.id) ? " attr-yes" : ""}`}
            data-attr={d.id}
            aria-pressed={chosen.has(d.id)}
            title={attrName(d.id)}
            onClick={() => toggle(d.id)}
          >
            <span class="attr-label">{attrLabel(d.id)}</span>
          </button>
        ))}
      </div>
    </details>
  );
}
