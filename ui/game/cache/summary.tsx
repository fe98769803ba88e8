/** The top of the cache page: facts, coordinates, D/T, size, placed and last found days, the status line and attributes. */
import { formatDdm } from "../../components/units.ts";
import { AttributeList } from "../attributes.tsx";
import { sizeLabel, typeLabel } from "../labels.ts";
import { t } from "../../i18n/i18n.ts";
import { absolute } from "../../time.tsx";
import type { Cache } from "./types.ts";

/** A day as YYYY-MM-DD in the visitor's time zone, with the full time in its tooltip. */
function Day({ at, testid }: { at: number | null | undefined; testid: string }) {
  if (!at)
    return (
      <span class="muted" data-testid={testid}>
        {t("cache.never")}
      </span>
    );
  const d = new Date(at);
  const day = `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;
  return (
    <time data-testid={testid} dateTime={d.toISOString()} title={absolute(at)}>
      {day}
    </time>
  );
}

const STATUS: Record<string, string> = { active: "cache.active", disabled: "cache.disabled", archived: "cache.archived", draft: "cache.draft" };

/** The top of the page: what a player needs before walking there. */
export function Summary({ c }: { c: Cache }) {
  const at = c.personal?.corrected ?? { lat: c.lat, lon: c.lon };
  return (
    <div class="card cache-summary" data-testid="cache-summary">
      <p class="muted" data-testid="cache-facts">
        {c.code} · {typeLabel(c.type)} · {sizeLabel(c.size)} · D{c.difficulty}/T{c.terrain} · {t("cache.by")}{" "}
        {c.ownerCall ? <a href={`/profile/${c.ownerCall.split("-")[0]}`}>{c.ownerCall}</a> : (c.placedBy ?? "?")} · {c.lat.toFixed(5)}, {c.lon.toFixed(5)}
        {c.mirror && (
          <>
            {" "}
            · {t("cache.from")} <span data-testid="cache-origin">{c.origin}</span> (
            <span class={c.trust === "trusted" ? "" : "warn"} data-testid="cache-trust">
              {c.trust === "trusted"
                ? t("cache.peerTrusted")
                : c.trust === "unvetted"
                  ? t("cache.peerUnvetted")
                  : t("cache.peerOther", { trust: c.trust ?? "?" })}
            </span>
            )
          </>
        )}
      </p>
      <dl class="summary-facts">
        <dt>{t("cache.coordinates")}</dt>
        <dd>
          <code data-testid="summary-coords">
            {/* latitude and longitude each kept whole: a narrow screen breaks between them */}
            {formatDdm(at.lat, at.lon)
              .split(/ (?=[EW] )/)
              .map((part, i) => (
                <span class="nowrap" key={part}>
                  {i > 0 && " "}
                  {part}
                </span>
              ))}
          </code>
          {c.personal?.corrected && <span class="muted">{t("cache.yourSolution")}</span>}
        </dd>
        <dt>{t("cache.dt")}</dt>
        <dd>
          {c.difficulty} / {c.terrain} · {sizeLabel(c.size)}
        </dd>
        <dt>{t("cache.placed")}</dt>
        <dd>
          <Day at={c.placedAt} testid="placed" />
        </dd>
        <dt>{t("cache.lastFound")}</dt>
        <dd>
          <Day at={c.lastFoundAt} testid="last-found" />
        </dd>
        <dt>{t("cache.status")}</dt>
        {/* the status line: open maintenance needs and other flags are shown here, beside the status */}
        <dd class="cache-status" data-testid="cache-status">
          {STATUS[c.status] ? t(STATUS[c.status]!) : c.status}
        </dd>
      </dl>
      <p>
        {t("cache.finds", { count: c.finds })} · {t("cache.favorites", { count: c.favorites })} ·{" "}
        {t("cache.rating", { avg: c.rating.average ?? "–", count: c.rating.count })}
      </p>
      <AttributeList attributes={c.attributes ?? []} />
    </div>
  );
}
