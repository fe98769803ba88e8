/** The cache page's "Trackables in this cache": what its moves say is in it now. */
import { api } from "../api.ts";
import { useLoad } from "../hooks.ts";
import { Empty, Failed } from "../components/states.tsx";
import type { Trackable } from "../../src/game/trackables.ts";

export function TrackablesInCache({ cache }: { cache: string | number }) {
  const list = useLoad(() => api<{ trackables: Trackable[] }>(`/api/trackables?cache=${encodeURIComponent(String(cache))}`), [cache]);
  return (
    <section aria-labelledby="in-cache">
      <h2 id="in-cache">Trackables in this cache</h2>
      {list.error && <Failed error={list.error} what="the trackables" />}
      {list.data && list.data.trackables.length === 0 && <Empty>None at the moment.</Empty>}
      {list.data && list.data.trackables.length > 0 && (
        <ul class="trackables" data-testid="cache-trackables">
          {list.data.trackables.map((t) => (
            <li key={t.gid}>
              <a href={`/trackable/${encodeURIComponent(t.ref)}`}>{t.name}</a> <span class="muted">{t.ref}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
