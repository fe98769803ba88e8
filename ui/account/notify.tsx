/** Watch alerts (how and how often), push on this device, and saved map views. */
import { useState } from "preact/hooks";
import { Empty, LoadState } from "../components/states.tsx";
import { api } from "../api.ts";
import { useLoad, useAction } from "../hooks.ts";
import { Section, type SectionProps } from "./ui.tsx";
import { secureContext } from "../secure-context.tsx";
import { t } from "../i18n/i18n.ts";

interface NotifyPrefs {
  email: boolean;
  push: boolean;
  digest: "hourly" | "daily" | "off";
}
interface SavedView {
  id: string;
  name: string;
  lat: number;
  lon: number;
  zoom: number;
}

/** Subscribes this browser to web push with the instance's VAPID key. */
async function subscribeThisDevice(): Promise<void> {
  if (!secureContext()) throw new Error("Push notifications need HTTPS (see /tls to set it up).");
  if (!("serviceWorker" in navigator) || !("PushManager" in window)) throw new Error("This browser cannot receive push notifications.");
  const { publicKey } = await api<{ publicKey: string }>("/api/push/key");
  const reg = await navigator.serviceWorker.register("/sw.js");
  await navigator.serviceWorker.ready;
  const key = Uint8Array.from(atob(publicKey.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
  const sub = await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
  await api("/api/push/subscription", { method: "PUT", json: sub.toJSON() });
}

export function NotificationsSection({ account }: SectionProps) {
  const prefs = useLoad(() => api<NotifyPrefs>("/api/notify/prefs"), [account.id]);
  const [p, setP] = useState<NotifyPrefs | null>(null);
  const { run, busy, errorView } = useAction();
  const [note, setNote] = useState("");
  const current = p ?? prefs.data;
  const save = (change: Partial<NotifyPrefs>) => run(async () => setP(await api<NotifyPrefs>("/api/notify/prefs", { method: "PUT", json: change })));
  const pushHere = () =>
    run(async () => {
      await subscribeThisDevice();
      setNote(t("alerts.pushOn"));
    });
  return (
    <Section title={t("account.watchAlerts")} id="notifications">
      {!current ? (
        <LoadState state={prefs} what={t("alerts.theSettings")} />
      ) : (
        <>
          <label class="check">
            <input
              type="checkbox"
              disabled={busy || !account.email}
              checked={current.email}
              onChange={(e) => save({ email: (e.target as HTMLInputElement).checked })}
            />{" "}
            {t("alerts.emailDigests")}
            {!account.email && t("alerts.addEmail")}
          </label>
          <label class="check">
            <input type="checkbox" disabled={busy} checked={current.push} onChange={(e) => save({ push: (e.target as HTMLInputElement).checked })} />{" "}
            {t("alerts.push")}
          </label>
          <label for="digest">{t("alerts.howOften")}</label>
          <select
            id="digest"
            disabled={busy}
            value={current.digest}
            onChange={(e) => save({ digest: (e.target as HTMLSelectElement).value as NotifyPrefs["digest"] })}
          >
            <option value="hourly">{t("alerts.hourly")}</option>
            <option value="daily">{t("alerts.daily")}</option>
            <option value="off">{t("alerts.never")}</option>
          </select>{" "}
          <button type="button" disabled={busy} onClick={pushHere}>
            {t("alerts.pushHere")}
          </button>
          {note && <p role="status">{note}</p>}
        </>
      )}
      {errorView}
    </Section>
  );
}

export function SavedViewsSection({ account }: SectionProps) {
  const [version, setVersion] = useState(0);
  const views = useLoad(() => api<{ views: SavedView[] }>("/api/views"), [account.id, version]);
  const { run, busy, errorView } = useAction();
  const remove = (id: string) =>
    confirm(t("alerts.deleteView")) &&
    run(async () => {
      await api(`/api/views/${id}`, { method: "DELETE", json: {} });
      setVersion(version + 1);
    });
  const list = views.data?.views ?? [];
  return (
    <Section title={t("account.savedViews")} id="views">
      {!views.data ? (
        <LoadState state={views} what={t("alerts.theViews")} />
      ) : list.length === 0 ? (
        <Empty>{t("alerts.noViews")}</Empty>
      ) : (
        <ul>
          {list.map((v) => (
            <li>
              <a href={`/v/${v.id}`}>{v.name}</a>{" "}
              <span class="muted">
                ({v.lat.toFixed(3)}, {v.lon.toFixed(3)}, {t("alerts.zoom", { zoom: v.zoom })})
              </span>{" "}
              <button type="button" disabled={busy} onClick={() => remove(v.id)}>
                {t("alerts.delete")}
              </button>
            </li>
          ))}
        </ul>
      )}
      {errorView}
    </Section>
  );
}
