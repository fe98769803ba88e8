/** The alerts' watch list on the messaging screen: callsigns to be told about when heard (GET/PUT /api/alerts/watch). */
import { useEffect, useState } from "preact/hooks";
import { api, ApiError } from "../api.ts";
import { t } from "../i18n/i18n.ts";

/** Callsigns as the box takes them: the same in every language. */
const EXAMPLE_CALLS = "K1ABC, N0CALL-9";

export function WatchList() {
  const [calls, setCalls] = useState<string[] | null>(null);
  const [text, setText] = useState("");
  const [note, setNote] = useState<string | null>(null);
  useEffect(() => {
    api<{ calls: string[] }>("/api/alerts/watch").then(
      (r) => (setCalls(r.calls), setText(r.calls.join(", "))),
      () => setCalls([]),
    );
  }, []);
  const save = async (e: Event) => {
    e.preventDefault();
    const list = text
      .split(/[\s,]+/)
      .map((c) => c.trim())
      .filter(Boolean);
    try {
      const r = await api<{ calls: string[] }>("/api/alerts/watch", { method: "PUT", json: { calls: list } });
      setCalls(r.calls);
      setText(r.calls.join(", "));
      setNote(r.calls.length ? t("messages.savedSome") : t("messages.savedNone"));
    } catch (err) {
      setNote(err instanceof ApiError ? err.message : t("messages.notSaved"));
    }
  };
  if (calls === null) return null;
  return (
    <section class="watch-list">
      <h2>{t("messages.watchList")}</h2>
      <p class="muted">{t("messages.watchIntro")}</p>
      <form class="compose" onSubmit={save}>
        <input
          name="watch"
          aria-label={t("messages.watched")}
          placeholder={EXAMPLE_CALLS}
          value={text}
          onInput={(e) => setText((e.target as HTMLInputElement).value)}
        />
        <button type="submit">{t("messages.save")}</button>
      </form>
      {note && <p role="status">{note}</p>}
    </section>
  );
}
