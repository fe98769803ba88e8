/**
 * The reviewers' page (REVIEW=on, issue 29 item 6): the caches waiting for
 * review, oldest first, each published or returned to its owner with a
 * reviewer note; and the latest reports of caches. Anyone else gets the
 * server's "only a reviewer" answer.
 */
import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { useAction, useLoad } from "../hooks.ts";
import { formatDate } from "../account/session.ts";
import { Empty, Failed, Loading } from "../components/states.tsx";
import type { Cache } from "../../src/game/caches.ts";
import type { Report } from "../../src/game/maintenance.ts";
import { t } from "../i18n/i18n.ts";
import { sizeLabel, typeLabel } from "../game/labels.ts";

function Waiting({ c, onDone }: { c: Cache; onDone: () => void }) {
  const [note, setNote] = useState("");
  const { run, errorView } = useAction();
  const act = (what: "publish" | "return") =>
    run(async () => {
      await api(`/api/review/${c.id}/${what}`, { method: "POST", json: { text: note || undefined } });
      onDone();
    });
  return (
    <li class="card" data-testid="review-item">
      <p>
        <a href={`/cache/${c.id}`}>{c.name}</a> <span class="muted">{c.code}</span>
      </p>
      <p class="muted">
        {typeLabel(c.type)} · {sizeLabel(c.size)} · D{c.difficulty}/T{c.terrain} · {t("cache.by")} {c.ownerCall ?? "?"} · {c.lat.toFixed(5)}, {c.lon.toFixed(5)}
      </p>
      <label for={`note-${c.id}`}>{t("review.note")}</label>
      <textarea id={`note-${c.id}`} rows={2} value={note} onInput={(e) => setNote((e.target as HTMLTextAreaElement).value)} />
      <p>
        <button type="button" class="primary" onClick={() => act("publish")}>
          {t("review.publish")}
        </button>{" "}
        <button type="button" onClick={() => act("return")}>
          {t("review.return")}
        </button>
      </p>
      {errorView}
    </li>
  );
}

export function ReviewPage() {
  const [n, setN] = useState(0);
  const q = useLoad(() => api<{ queue: Cache[]; reports: Report[] }>("/api/review"), [n]);
  return (
    <section class="page">
      <h1>{t("review.title")}</h1>
      {q.loading && !q.data && <Loading what={t("review.theQueue")} />}
      {q.error && <Failed error={q.error} what={t("review.theQueue")} />}
      {q.data && (
        <>
          <h2>{t("review.waiting")}</h2>
          {q.data.queue.length === 0 && <Empty>{t("review.noneWaiting")}</Empty>}
          <ul class="plain" data-testid="review-queue">
            {q.data.queue.map((c) => (
              <Waiting key={c.id} c={c} onDone={() => setN(n + 1)} />
            ))}
          </ul>
          <h2>{t("review.reports")}</h2>
          {q.data.reports.length === 0 && <Empty>{t("review.noReports")}</Empty>}
          <ul data-testid="reports">
            {q.data.reports.map((r) => (
              <li>
                <a href={`/cache/${r.cacheId}`}>{r.cacheName}</a>: {r.reason}{" "}
                <span class="muted">
                  ({r.call ?? "?"}, {formatDate(r.createdAt)})
                </span>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
