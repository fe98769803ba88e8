/**
 * The map's emergency banner: emergencies heard in the last day (Mic-E
 * "Emergency", the \! symbol), from GET /api/alerts/emergencies, asked again
 * every minute; each can be dismissed (remembered in this browser).
 */
import { useEffect, useState } from "preact/hooks";
import { api } from "../api.ts";
import { usePoll } from "../hooks.ts";
import { When } from "../time.tsx";
import type { Emergency } from "../../src/messages/alerts.ts";

const KEY = "svc-dismissed-emergencies";
const dismissedIds = (): number[] => {
  try {
    return JSON.parse(localStorage.getItem(KEY) ?? "[]") as number[];
  } catch {
    return [];
  }
};

export function EmergencyBanner() {
  const poll = usePoll(60_000);
  const [list, setList] = useState<Emergency[]>([]);
  const [dismissed, setDismissed] = useState<number[]>(dismissedIds);
  useEffect(() => {
    api<{ emergencies: Emergency[] }>("/api/alerts/emergencies").then(
      (r) => setList(r.emergencies),
      () => {},
    );
  }, [poll]);
  const shown = list.filter((e) => !dismissed.includes(e.id));
  if (shown.length === 0) return null;
  const dismiss = (id: number) => {
    const next = [...dismissed, id].slice(-100);
    localStorage.setItem(KEY, JSON.stringify(next));
    setDismissed(next);
  };
  return (
    <div class="emergency-banner" role="alert" data-testid="emergency-banner">
      {shown.map((e) => (
        <div class="emergency" key={e.id}>
          <b>EMERGENCY</b> <a href={`/station/${encodeURIComponent(e.call)}`}>{e.call}</a>
          {e.lat !== null && e.lon !== null && (
            <>
              {" "}
              at {e.lat.toFixed(4)}, {e.lon.toFixed(4)}
            </>
          )}{" "}
          {e.reason === "mic-e" ? "(Mic-E Emergency)" : "(emergency symbol)"} {e.comment ? `"${e.comment}" ` : ""}
          <When at={e.ts} />
          <button type="button" class="dismiss" aria-label={`Dismiss the emergency of ${e.call}`} onClick={() => dismiss(e.id)}>
            Dismiss
          </button>
        </div>
      ))}
    </div>
  );
}
