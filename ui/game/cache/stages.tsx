/** A multi-stage cache's stages, each unlocked by its answer in turn. */
import { useState } from "preact/hooks";
import { api, ApiError } from "../../api.ts";
import { useAction, useLoad } from "../../hooks.ts";
import { t } from "../../i18n/i18n.ts";
import type { StageView as Stage } from "../../../src/game/stages.ts";

export function Stages({ id, signedIn }: { id: number; signedIn: boolean }) {
  const [n, setN] = useState(0);
  const st = useLoad(() => api<{ stages: Stage[]; next: number | null }>(`/api/caches/${id}/stages`), [id, n]);
  const [answer, setAnswer] = useState("");
  const { run, errorView } = useAction();
  if (!st.data?.stages.length) return null;
  const unlock = async (e: Event, stage: number) => {
    e.preventDefault();
    await run(
      async () => {
        await api(`/api/caches/${id}/stages/${stage}/unlock`, { method: "POST", json: { answer } });
        setAnswer("");
        setN(n + 1);
      },
      (err) => (err instanceof ApiError && err.code === "wrong_answer" ? t("cache.wrongAnswer") : (err as Error).message),
    );
  };
  return (
    <section>
      <h2>{t("cache.stages")}</h2>
      <ol class="stages">
        {st.data.stages.map((s) => (
          <li data-testid={`stage-${s.n}`}>
            <b>{s.title}</b> {s.unlocked ? <span class="tag">{t("cache.unlocked")}</span> : null}
            {s.question && <p>{s.question}</p>}
            {s.audio && <audio controls src={s.audio} />}
            {s.content && <p class="stage-content">{s.content}</p>}
            {!s.unlocked && s.question && signedIn && st.data!.next === s.n && (
              <form class="inline" onSubmit={(e) => unlock(e, s.n)}>
                <input aria-label={t("cache.answerFor", { n: s.n })} value={answer} onInput={(e) => setAnswer((e.target as HTMLInputElement).value)} />
                <button type="submit">{t("cache.unlock")}</button>
              </form>
            )}
          </li>
        ))}
      </ol>
      {errorView}
    </section>
  );
}
