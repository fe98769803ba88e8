/**
 * A finder's statistics on the profile page (GET /api/profile/:call/stats):
 * the RF-proven share, streaks, the 81-cell D/T grid, the 366-day calendar,
 * finds per type and milestones.
 */
import { api } from "../api.ts";
import { useLoad } from "../hooks.ts";
import { plural } from "../components/plural.ts";
import type { FinderStats } from "../../src/game/finder-stats.ts";

const GRADES = ["1", "1.5", "2", "2.5", "3", "3.5", "4", "4.5", "5"];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const MONTH_DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** How dark a cell is: 0 none, 1-4 by share of the busiest cell. */
const level = (n: number, max: number) => (n === 0 ? 0 : Math.min(4, 1 + Math.floor((3 * n) / Math.max(1, max))));

function DtGrid({ dt }: { dt: number[][] }) {
  const max = Math.max(...dt.flat());
  const filled = dt.flat().filter((n) => n > 0).length;
  return (
    <figure class="stat-figure">
      <figcaption>Difficulty and terrain: {filled} of 81 combinations found</figcaption>
      <table class="dt-grid" data-testid="dt-grid">
        <thead>
          <tr>
            <th scope="col">
              <abbr title="difficulty (rows) and terrain (columns)">D\T</abbr>
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
              {row.map((n, t) => (
                <td data-level={level(n, max)} title={`D${GRADES[d]}/T${GRADES[t]}: ${plural(n, "find")}`}>
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
      <figcaption>Calendar days with a find: {filled} of 366</figcaption>
      <div class="day-grid" data-testid="day-grid" role="img" aria-label={`finds on ${filled} of the 366 days of the year`}>
        {MONTHS.map((m, k) => (
          <div class="day-row">
            <span class="day-month">{m}</span>
            {Array.from({ length: MONTH_DAYS[k]! }, (_, d) => {
              const n = days[index++]!;
              return <span class="day" data-level={level(n, max)} title={`${d + 1} ${m}: ${plural(n, "find")}`} />;
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
      <h2 id="finder-stats">Statistics</h2>
      <p data-testid="stats-summary">
        {plural(d.finds, "find")}, {d.rfProven} RF-proven ({Math.round((d.rfProvenShare ?? 0) * 100)} %).
        {d.streaks.longest && (
          <>
            {" "}
            Longest streak: {plural(d.streaks.longest.days, "day")} ({d.streaks.longest.from} to {d.streaks.longest.to}).
          </>
        )}
        {d.streaks.current && <> Current streak: {plural(d.streaks.current.days, "day")}.</>}
      </p>
      <DtGrid dt={d.dt} />
      <Calendar days={d.days} />
      <h3>Finds by type</h3>
      <ul class="inline-list" data-testid="finds-by-type">
        {types.map(([type, n]) => (
          <li>
            {type}: {n}
          </li>
        ))}
        {d.unknown > 0 && <li>caches no longer here: {d.unknown}</li>}
      </ul>
      {d.milestones.length > 0 && (
        <>
          <h3>Milestones</h3>
          <ul data-testid="milestones">
            {d.milestones.map((m) => (
              <li>
                find #{m.n}: <a href={`/cache/${encodeURIComponent(m.cache.gid)}`}>{m.cache.name ?? m.cache.gid}</a> on{" "}
                {new Date(m.at).toISOString().slice(0, 10)}
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
