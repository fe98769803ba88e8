/** The game's list pages: leaderboard, activity, a callsign's profile, supporters. */
import { api } from "../api.ts";
import { Empty, LoadState } from "../components/states.tsx";
import { When } from "../time.tsx";
import { useLoad } from "../hooks.ts";
import { FinderStatsView } from "../game/finder-stats.tsx";
import { typeLabel } from "../game/labels.ts";
import { t } from "../i18n/i18n.ts";
import { Rich } from "../i18n/rich.tsx";
import { FIND_LOG_KINDS } from "../../src/lib/log-kinds.ts";

interface Leaderboard {
  finders: Array<{ call: string; finds: number; tierA: number }>;
  hiders: Array<{ call: string; caches: number; finds: number; favorites: number }>;
}

export function LeaderboardPage() {
  const lb = useLoad(() => api<Leaderboard>("/api/leaderboard"), []);
  return (
    <section class="page">
      <div class="page-head">
        <h1>{t("game.leaderboard")}</h1>
        <a href="/feeds/leaderboard.xml">RSS</a>
      </div>
      <LoadState state={lb} what={t("game.theLeaderboard")} />
      <div class="cards">
        <div class="card">
          <h2>{t("game.finders")}</h2>
          <table class="table" data-testid="finders">
            <thead>
              <tr>
                <th>#</th>
                <th>{t("game.call")}</th>
                <th>{t("game.finds")}</th>
                <th>{t("game.rfVerified")}</th>
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
          {lb.data && lb.data.finders.length === 0 && <Empty>{t("game.noFinds")}</Empty>}
        </div>
        <div class="card">
          <h2>{t("game.hiders")}</h2>
          <table class="table" data-testid="hiders">
            <thead>
              <tr>
                <th>#</th>
                <th>{t("game.call")}</th>
                <th>{t("game.caches")}</th>
                <th>{t("game.finds")}</th>
                <th>{t("game.favorites")}</th>
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
          {lb.data && lb.data.hiders.length === 0 && <Empty>{t("game.noHidden")}</Empty>}
        </div>
      </div>
    </section>
  );
}

type Item =
  | { type: "log"; kind: string; call: string | null; cacheName: string; cacheId: number | string; createdAt: number; tier: string | null; text: string | null }
  | { type: "cache"; at: number; cache: { id: number; name: string; ownerCall: string | null; type: string } };

/** The log kinds an activity line has words for (ui/i18n game.did.*): every kind a log may have; another is told as a note. */
const VERBS: readonly string[] = FIND_LOG_KINDS;

export function ActivityList({ url }: { url: string }) {
  const act = useLoad(() => api<{ items: Item[] }>(url), [url]);
  return (
    <>
      <LoadState state={act} what={t("game.theActivity")} empty={act.data && act.data.items.length === 0 && t("game.nothingYet")} />
      <ul class="activity" data-testid="activity">
        {(act.data?.items ?? []).map((i) =>
          i.type === "log" ? (
            <li>
              <span class="muted">
                <When at={i.createdAt} />
              </span>{" "}
              <Rich
                k={`game.did.${VERBS.includes(i.kind) ? i.kind : "note"}`}
                vars={{ who: i.call ?? t("game.someone") }}
                parts={[() => <a href={`/cache/${encodeURIComponent(String(i.cacheId))}`}>{i.cacheName}</a>]}
              />
              {i.tier === "a" && <span class="tier tier-a"> {t("game.rfVerifiedTag")}</span>}
            </li>
          ) : (
            <li>
              <span class="muted">
                <When at={i.at} />
              </span>{" "}
              <Rich
                k="game.hid"
                vars={{ who: i.cache.ownerCall ?? t("game.someone"), type: typeLabel(i.cache.type) }}
                parts={[() => <a href={`/cache/${i.cache.id}`}>{i.cache.name}</a>]}
              />
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
        <h1>{t("game.activity")}</h1>
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
        <img src={`/badge/${encodeURIComponent(call)}.svg`} alt={t("game.badge", { call: p.data?.call ?? call.toUpperCase() })} />
      </div>
      <LoadState state={p} what={t("game.thisProfile")} />
      {p.data?.profile?.about && <p>{p.data.profile.about}</p>}
      {p.data?.profile?.grid && <p class="muted">{t("game.grid", { grid: p.data.profile.grid })}</p>}
      {p.data?.profile?.url && (
        <p>
          <a href={p.data.profile.url} rel="noopener nofollow">
            {p.data.profile.url}
          </a>
        </p>
      )}
      {g ? (
        <dl class="facts" data-testid="game-stats">
          <dt>{t("game.finds")}</dt>
          <dd>{g.finds}</dd>
          <dt>{t("game.rfVerified")}</dt>
          <dd>{g.tierA}</dd>
          <dt>{t("game.didntFind")}</dt>
          <dd>{g.dnfs}</dd>
          <dt>{t("game.cachesHidden")}</dt>
          <dd>{g.hidden}</dd>
          <dt>{t("game.favoritesReceived")}</dt>
          <dd>{g.favoritesReceived}</dd>
        </dl>
      ) : (
        !p.loading && <p class="muted">{t("game.noActivity")}</p>
      )}
      <FinderStatsView call={call} />
      <h2>{t("game.recent")}</h2>
      <p>
        <a href={`/feeds/user/${encodeURIComponent(call)}.xml`}>RSS</a> · <a href={`/api/v1/finds/${encodeURIComponent(call)}.adif`}>{t("game.adif")}</a>
      </p>
      <ActivityList url={`/api/activity?call=${encodeURIComponent(call)}`} />
    </section>
  );
}

export function SupportPage() {
  const s = useLoad(() => api<{ supporters: Array<{ name: string; call: string | null; level: string | null; since: number }> }>("/api/support"), []);
  return (
    <section class="page">
      <h1>{t("game.supporters")}</h1>
      <p>{t("game.supportersIntro")}</p>
      <LoadState state={s} what={t("game.theSupporters")} />
      <ul data-testid="supporters">
        {(s.data?.supporters ?? []).map((x) => (
          <li>
            {x.name}
            {x.level ? ` (${x.level})` : ""}{" "}
            <span class="muted">
              {t("game.since")} <When at={x.since} />
            </span>
          </li>
        ))}
      </ul>
      {s.data && s.data.supporters.length === 0 && <p class="muted">{t("game.noSupporters")}</p>}
    </section>
  );
}
