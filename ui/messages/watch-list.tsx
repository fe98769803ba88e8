/** The alerts' watch list on the messaging screen: callsigns to be told about when heard (GET/PUT /api/alerts/watch). */
import { useEffect, useState } from "preact/hooks";
import { api, ApiError } from "../api.ts";

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
      setNote(r.calls.length ? "Saved: you are told when one of them is heard." : "Saved: no callsigns watched.");
    } catch (err) {
      setNote(err instanceof ApiError ? err.message : "Not saved: no network.");
    }
  };
  if (calls === null) return null;
  return (
    <section class="watch-list">
      <h2>Watch list</h2>
      <p class="muted">Callsigns to be told about when heard (a call without SSID: any of its SSIDs), and their emergencies.</p>
      <form class="compose" onSubmit={save}>
        <input
          name="watch"
          aria-label="Watched callsigns"
          placeholder="K1ABC, N0CALL-9"
          value={text}
          onInput={(e) => setText((e.target as HTMLInputElement).value)}
        />
        <button type="submit">Save</button>
      </form>
      {note && <p role="status">{note}</p>}
    </section>
  );
}
