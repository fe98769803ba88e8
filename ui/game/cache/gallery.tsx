/** The cache's photo gallery, with an upload for signed-in players. */
import { useState } from "preact/hooks";
import { api } from "../../api.ts";
import { useAction, useLoad } from "../../hooks.ts";
import { t } from "../../i18n/i18n.ts";

interface Media {
  id: number;
  type: string;
  caption: string | null;
  url: string;
  by: string | null;
}

export function Gallery({ id, canUpload }: { id: number; canUpload: boolean }) {
  const [n, setN] = useState(0);
  const media = useLoad(() => api<{ media: Media[] }>(`/api/caches/${id}/media`), [id, n]);
  const { run, errorView } = useAction();
  const upload = async (e: Event) => {
    const f = (e.target as HTMLInputElement).files?.[0];
    if (!f) return;
    await run(async () => {
      await api(`/api/caches/${id}/media?caption=${encodeURIComponent(f.name)}`, { method: "POST", body: f, headers: { "content-type": f.type } });
      setN(n + 1);
    });
  };
  const images = (media.data?.media ?? []).filter((m) => m.type.startsWith("image/"));
  if (!images.length && !canUpload) return null;
  return (
    <section>
      <h2>{t("cache.gallery")}</h2>
      <div class="gallery">
        {images.map((m) => (
          <figure>
            <img src={m.url} alt={m.caption ?? t("cache.photo")} loading="lazy" />
            <figcaption>
              {m.caption} {m.by && <span class="muted">· {m.by}</span>}
            </figcaption>
          </figure>
        ))}
      </div>
      {canUpload && (
        <label class="check">
          {t("cache.addPhoto")} <input type="file" accept="image/jpeg,image/png,image/webp,image/gif" onChange={upload} />
        </label>
      )}
      {errorView}
    </section>
  );
}
