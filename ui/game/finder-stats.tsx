/**
 * A finder's statistics on the profile page (GET /api/profile/:call/stats):
 * the RF-proven share, streaks, the 81-cell D/T grid, the 366-day calendar,
 * finds per type and milestones.
 */
import { api } from "../api.ts";
import { useLoad } from "../hooks.ts";
import { fmtNumber, lang, t } from "../i18n/i18n.ts";
import { Rich } from "../i18n/rich.tsx";
import { typeLabel } from "./labels.ts";
import type { FinderStats } from "../../src/game/finder-stats.ts";

const GRADES = ["1", "1.5", "2", "2.5", "3", "3.5", "4", "4.5", "5"];
const MONTH_DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

const finds = (n: number) => t("gameStats.finds", { count: n });
/** A day of a leap year (month 0-11) in the chosen language, "5 Mar" or "5. März". */
const dayOf = (month: number, day: number, opts: Intl.DateTimeFormatOptions) =>
  new Intl.DateTimeFormat(lang(), { ...opts, timeZone: "UTC" }).format(Date.UTC(2024, month, day));

/** How dark a cell is: 0 none, 1-4 by share of the busiest cell. */
const level = (n: number, max: number) => (n === 0 ? 0 : Math.min(4, 1 + Math.floor((3 * n) / Math.max(1, max))));

function DtGrid({ dt }: { dt: number[][] }) {
  const max = Math.max(...dt.flat());
  const filled = dt.flat().filter((n) => n > 0).length;
  return (
    <figure class="stat-figure">
      <figcaption>{t("gameStats.dt", { filled })}</figcaption>
      <table class="dt-grid" data-testid="dt-grid">
        <thead>
          <tr>
            <th scope="col">
              <abbr title={t("gameStats.dtTitle")}>D\T</abbr>
            </th>
            {GRADES.map((g) => (
              <th scope="col">{g}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {dt.map((row, d) => (
            <tr>
              <th scope="row">{GRADES[d]}</th>
              {row.map((n, c) => (
                <td data-level={level(n, max)} title={`D${GRADES[d]}/T${GRADES[c]}: ${finds(n)}`}>
                  {n || ""}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}

function Calendar({ days }: { days: number[] }) {
  const max = Math.max(...days);
  const filled = days.filter((n) => n > 0).length;
  let index = 0;
  return (
    <figure class="stat-figure">
      <figcaption>{t("gameStats.calendar", { filled })}</figcaption>
      <div class="day-grid" data-testid="day-grid" role="img" aria-label={t("gameStats.calendarLabel", { filled })}>
        {MONTH_DAYS.map((length, k) => (
          <div class="day-row">
            <span class="day-month">{dayOf(k, 1, { month: "short" })}</span>
            {Array.from({ length }, (_, d) => {
              const n = days[index++]!;
              return <span class="day" data-level={level(n, max)} title={`${dayOf(k, d + 1, { day: "numeric", month: "short" })}: ${finds(n)}`} />;
            })}
          </div>
        ))}
      </div>
    </figure>
  );
}

export function FinderStatsView({ call }: { call: string }) {
  const s = useLoad(() => api<FinderStats>(`/api/profile/${encodeURIComponent(call)}/stats`), [call]);
  if (!s.data || s.data.finds === 0) return null;
  const d = s.data;
  const types = Object.entries(d.byType).sort((a, b) => b[1] - a[1]);
  return (
    <section aria-labelledby="finder-stats" data-testid="finder-stats">
      <h2 id="finder-stats">{t("gameStats.title")}</h2>
      <p data-testid="stats-summary">
        {t("gameStats.summary", { finds: finds(d.finds), rf: fmtNumber(d.rfProven), pct: fmtNumber(Math.round((d.rfProvenShare ?? 0) * 100)) })}
        {d.streaks.longest &&
          ` ${t("gameStats.longest", { days: t("gameStats.days", { count: d.streaks.longest.days }), from: d.streaks.longest.from, to: d.streaks.longest.to })}`}
        {d.streaks.current && ` ${t("gameStats.current", { days: t("gameStats.days", { count: d.streaks.current.days }) })}`}
      </p>
      <DtGrid dt={d.dt} />
      <Calendar days={d.days} />
      <h3>{t("gameStats.byType")}</h3>
      <ul class="inline-list" data-testid="finds-by-type">
        {types.map(([type, n]) => (
          <li>
            {typeLabel(type)}: {n}
          </li>
        ))}
        {d.unknown > 0 && <li>{t("gameStats.gone", { n: d.unknown })}</li>}
      </ul>
      {d.milestones.length > 0 && (
        <>
          <h3>{t("gameStats.milestones")}</h3>
          <ul data-testid="milestones">
            {d.milestones.map((m) => (
              <li>
                <Rich
                  k="gameStats.milestone"
                  vars={{ n: m.n, date: new Date(m.at).toISOString().slice(0, 10) }}
                  parts={[() => <a href={`/cache/${encodeURIComponent(m.cache.gid)}`}>{m.cache.name ?? m.cache.gid}</a>]}
                />
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
