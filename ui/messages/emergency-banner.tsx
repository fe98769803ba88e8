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
import { t } from "../i18n/i18n.ts";

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
          <b>{t("alertsLive.emergency")}</b> <a href={`/station/${encodeURIComponent(e.call)}`}>{e.call}</a>
          {e.lat !== null && e.lon !== null && <> {t("alertsLive.at", { lat: e.lat.toFixed(4), lon: e.lon.toFixed(4) })}</>}{" "}
          {e.reason === "mic-e" ? t("alertsLive.micE") : t("alertsLive.symbol")} {e.comment ? t("alertsLive.comment", { comment: e.comment }) : ""}
          <When at={e.ts} />
          <button type="button" class="dismiss" aria-label={t("alertsLive.dismissLabel", { call: e.call })} onClick={() => dismiss(e.id)}>
            {t("alertsLive.dismiss")}
          </button>
        </div>
      ))}
    </div>
  );
}
