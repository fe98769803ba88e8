/** The cache's logbook: its counts per kind and the logs, newest first; finders' callsigns link to their profiles. */
import { formatDate } from "../../account/session.ts";
import { Empty, Failed, Loading } from "../../components/states.tsx";
import { logKindLabel } from "../labels.ts";
import { t } from "../../i18n/i18n.ts";
import type { Log } from "./types.ts";

/** A find's tier in words (ui/i18n cache.tierA...), the letter when unknown. */
const tierLabel = (tier: string) => t(`cache.tier${tier.toUpperCase()}`, { defaultValue: tier });
/** A log kind in the interface's language (ui/i18n logKind.*). */
const kindLabel = logKindLabel;

const KIND_ORDER = ["find", "dnf", "note"];

/** Active logs per kind from a page of logs (when the cache's own counts are not at hand). */
function countKinds(logs: Log[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const l of logs) if (l.state === "active") out[l.kind] = (out[l.kind] ?? 0) + 1;
  return out;
}

/** "3 Found it · 1 Didn't find it · 2 Note", the usual kinds first. */
function LogCounts({ counts }: { counts: Record<string, number> }) {
  const kinds = Object.keys(counts)
    .filter((k) => counts[k]! > 0)
    .sort((a, b) => (KIND_ORDER.indexOf(a) + 1 || 99) - (KIND_ORDER.indexOf(b) + 1 || 99) || a.localeCompare(b));
  if (!kinds.length) return null;
  return (
    <p class="log-counts" data-testid="log-counts">
      {kinds.map((k, i) => (
        <span key={k} data-kind={k}>
          {i > 0 && " · "}
          {counts[k]} {kindLabel(k)}
        </span>
      ))}
    </p>
  );
}

/** The logs section: counts per kind (the cache's own, else counted from the page of logs), then the logs or their state. */
export function CacheLogs({ counts, logs }: { counts?: Record<string, number>; logs: { data?: { logs: Log[] }; error?: Error; loading: boolean } }) {
  return (
    <section class="cache-logs" data-testid="logs-section">
      <h2>{t("cache.logs")}</h2>
      <LogCounts counts={counts ?? countKinds(logs.data?.logs ?? [])} />
      {logs.loading && !logs.data && <Loading what={t("cache.theLogs")} />}
      {logs.error && <Failed error={logs.error} what={t("cache.theLogs")} />}
      {logs.data && logs.data.logs.length === 0 && <Empty>{t("cache.noLogs")}</Empty>}
      <ul class="logs" data-testid="logs">
        {(logs.data?.logs ?? []).map((l) => (
          <li>
            <b>{kindLabel(l.kind)}</b> {l.call ? <a href={`/profile/${encodeURIComponent(l.call.split("-")[0]!)}`}>{l.call}</a> : <i>{t("cache.withdrawn")}</i>}{" "}
            <span class="muted">{formatDate(l.foundAt)}</span>{" "}
            {l.kind === "find" && l.tier && (
              <span class={`tier tier-${l.tier}`} title={tierLabel(l.tier)}>
                {l.tier === "a" && l.corroboration?.igate ? t("cache.tierAVia", { igate: l.corroboration.igate }) : tierLabel(l.tier)}
              </span>
            )}
            {l.text && <p>{l.text}</p>}
          </li>
        ))}
      </ul>
    </section>
  );
}
