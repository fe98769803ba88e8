/** The cache page's "Trackables in this cache": what its moves say is in it now. */
import { api } from "../api.ts";
import { useLoad } from "../hooks.ts";
import { Empty, Failed } from "../components/states.tsx";
import type { Trackable } from "../../src/game/trackables.ts";
import { t } from "../i18n/i18n.ts";

export function TrackablesInCache({ cache }: { cache: string | number }) {
  const list = useLoad(() => api<{ trackables: Trackable[] }>(`/api/trackables?cache=${encodeURIComponent(String(cache))}`), [cache]);
  return (
    <section aria-labelledby="in-cache">
      <h2 id="in-cache">{t("trackable.inThisCache")}</h2>
      {list.error && <Failed error={list.error} what={t("trackable.theTrackables")} />}
      {list.data && list.data.trackables.length === 0 && <Empty>{t("trackable.noneNow")}</Empty>}
      {list.data && list.data.trackables.length > 0 && (
        <ul class="trackables" data-testid="cache-trackables">
          {list.data.trackables.map((tb) => (
            <li key={tb.gid}>
              <a href={`/trackable/${encodeURIComponent(tb.ref)}`}>{tb.name}</a> <span class="muted">{tb.ref}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
