/** The game's list pages: leaderboard, activity, a callsign's profile, supporters. */
import { api } from "../api.ts";
import { LoadState } from "../states.tsx";
import { When } from "../time.tsx";
import { useLoad } from "../hooks.ts";
import { FinderStatsView } from "../game/finder-stats.tsx";

interface Leaderboard {
  finders: Array<{ call: string; finds: number; tierA: number }>;
  hiders: Array<{ call: string; caches: number; finds: number; favorites: number }>;
}

export function LeaderboardPage() {
  const lb = useLoad(() => api<Leaderboard>("/api/leaderboard"), []);
  return (
    <section class="page">
      <div class="page-head">
        <h1>Leaderboard</h1>
        <a href="/feeds/leaderboard.xml">RSS</a>
      </div>
      <LoadState state={lb} what="the leaderboard" />
      <div class="cards">
        <div class="card">
          <h2>Finders</h2>
          <table class="table" data-testid="finders">
            <thead>
              <tr>
                <th>#</th>
                <th>Call</th>
                <th>Finds</th>
                <th>RF-verified</th>
              </tr>
            </thead>
            <tbody>
              {(lb.data?.finders ?? []).map((f, k) => (
                <tr>
                  <td>{k + 1}</td>
                  <td>
                    <a href={`/profile/${f.call}`}>{f.call}</a>
                  </td>
                  <td>{f.finds}</td>
                  <td>{f.tierA}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {lb.data && lb.data.finders.length === 0 && (
            <p class="muted" data-state="empty">
              No finds logged yet.
            </p>
          )}
        </div>
        <div class="card">
          <h2>Hiders</h2>
          <table class="table" data-testid="hiders">
            <thead>
              <tr>
                <th>#</th>
                <th>Call</th>
                <th>Caches</th>
                <th>Finds</th>
                <th>Favorites</th>
              </tr>
            </thead>
            <tbody>
              {(lb.data?.hiders ?? []).map((h, k) => (
                <tr>
                  <td>{k + 1}</td>
                  <td>
                    <a href={`/profile/${h.call}`}>{h.call}</a>
                  </td>
                  <td>{h.caches}</td>
                  <td>{h.finds}</td>
                  <td>{h.favorites}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {lb.data && lb.data.hiders.length === 0 && (
            <p class="muted" data-state="empty">
              No caches hidden yet.
            </p>
          )}
        </div>
      </div>
    </section>
  );
}

type Item =
  | { type: "log"; kind: string; call: string | null; cacheName: string; cacheId: number | string; createdAt: number; tier: string | null; text: string | null }
  | { type: "cache"; at: number; cache: { id: number; name: string; ownerCall: string | null; type: string } };

export function ActivityList({ url }: { url: string }) {
  const act = useLoad(() => api<{ items: Item[] }>(url), [url]);
  const verb: Record<string, string> = {
    find: "found",
    dnf: "did not find",
    note: "wrote about",
    "needs-maintenance": "reported a maintenance need on",
    "needs-archive": "asked to archive",
    "owner-maintenance": "did maintenance on",
    "temp-disable": "disabled",
    enable: "enabled",
    archive: "archived",
    "reviewer-note": "wrote a reviewer note on",
    "will-attend": "will attend",
    attended: "attended",
  };
  return (
    <>
      <LoadState state={act} what="the activity" empty={act.data && act.data.items.length === 0 && "Nothing yet: no caches hidden and no finds logged."} />
      <ul class="activity" data-testid="activity">
        {(act.data?.items ?? []).map((i) =>
          i.type === "log" ? (
            <li>
              <span class="muted">
                <When at={i.createdAt} />
              </span>{" "}
              {i.call ?? "someone"} {verb[i.kind] ?? verb.note} <a href={`/cache/${encodeURIComponent(String(i.cacheId))}`}>{i.cacheName}</a>
              {i.tier === "a" && <span class="tier tier-a"> RF-verified</span>}
            </li>
          ) : (
            <li>
              <span class="muted">
                <When at={i.at} />
              </span>{" "}
              {i.cache.ownerCall} hid <a href={`/cache/${i.cache.id}`}>{i.cache.name}</a> ({i.cache.type})
            </li>
          ),
        )}
      </ul>
    </>
  );
}

export function ActivityPage() {
  return (
    <section class="page">
      <div class="page-head">
        <h1>Activity</h1>
        <a href="/feeds/activity.xml">RSS</a>
      </div>
      <ActivityList url="/api/activity" />
    </section>
  );
}

interface Profile {
  call: string;
  profile: { about?: string; grid?: string; url?: string } | null;
  game?: { finds: number; tierA: number; dnfs: number; hidden: number; favoritesReceived: number };
}

export function ProfilePage({ call }: { call: string }) {
  // the page may have come with this answer (src/http/first-view.ts)
  const path = `/api/profile/${encodeURIComponent(call)}`;
  const p = useLoad(() => api<Profile>(path), [call], path);
  const g = p.data?.game;
  return (
    <section class="page">
      <div class="page-head">
        <h1>{p.data?.call ?? call.toUpperCase()}</h1>
        <img src={`/badge/${encodeURIComponent(call)}.svg`} alt="badge" />
      </div>
      <LoadState state={p} what="this profile" />
      {p.data?.profile?.about && <p>{p.data.profile.about}</p>}
      {p.data?.profile?.grid && <p class="muted">Grid {p.data.profile.grid}</p>}
      {p.data?.profile?.url && (
        <p>
          <a href={p.data.profile.url} rel="noopener nofollow">
            {p.data.profile.url}
          </a>
        </p>
      )}
      {g ? (
        <dl class="facts" data-testid="game-stats">
          <dt>Finds</dt>
          <dd>{g.finds}</dd>
          <dt>RF-verified</dt>
          <dd>{g.tierA}</dd>
          <dt>Didn't find</dt>
          <dd>{g.dnfs}</dd>
          <dt>Caches hidden</dt>
          <dd>{g.hidden}</dd>
          <dt>Favorites received</dt>
          <dd>{g.favoritesReceived}</dd>
        </dl>
      ) : (
        !p.loading && <p class="muted">No game activity yet.</p>
      )}
      <FinderStatsView call={call} />
      <h2>Recent</h2>
      <p>
        <a href={`/feeds/user/${encodeURIComponent(call)}.xml`}>RSS</a> ·{" "}
        <a href={`/api/v1/finds/${encodeURIComponent(call)}.adif`}>ADIF of RF-verified finds</a>
      </p>
      <ActivityList url={`/api/activity?call=${encodeURIComponent(call)}`} />
    </section>
  );
}

export function SupportPage() {
  const s = useLoad(() => api<{ supporters: Array<{ name: string; call: string | null; level: string | null; since: number }> }>("/api/support"), []);
  return (
    <section class="page">
      <h1>Supporters</h1>
      <p>This instance runs thanks to the people below (listed only if they chose to be).</p>
      <LoadState state={s} what="the supporters" />
      <ul data-testid="supporters">
        {(s.data?.supporters ?? []).map((x) => (
          <li>
            {x.name}
            {x.level ? ` (${x.level})` : ""}{" "}
            <span class="muted">
              since <When at={x.since} />
            </span>
          </li>
        ))}
      </ul>
      {s.data && s.data.supporters.length === 0 && <p class="muted">No one is listed yet.</p>}
    </section>
  );
}
