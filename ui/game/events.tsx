/**
 * Events in the web app (issue 29 item 5): the hide form's day, times and
 * time zone of an event or CITO, and the cache page's line saying when it
 * takes place, with its calendar file.
 */
import type { EventInfo } from "../../src/game/events.ts";
import { t } from "../i18n/i18n.ts";

/** A time zone as the form expects it (an IANA name, the same in every language). */
const ZONE_EXAMPLE = "Europe/Berlin";

export const EVENT_TYPES = ["event", "cito"];
export interface EventInput {
  date: string;
  start: string;
  end: string;
  timeZone: string;
}

/** A week from today, 18:00-20:00, in this browser's time zone. */
export function defaultEvent(): EventInput {
  return {
    date: new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10),
    start: "18:00",
    end: "20:00",
    timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC",
  };
}

export function EventFields({ value, onChange }: { value: EventInput; onChange: (v: EventInput) => void }) {
  const set = (k: keyof EventInput) => (e: Event) => onChange({ ...value, [k]: (e.target as HTMLInputElement).value });
  return (
    <fieldset class="event-fields" data-testid="event-fields">
      <legend>{t("gameEvent.when")}</legend>
      <div class="row">
        <span>
          <label for="ev-date">{t("gameEvent.day")}</label>
          <input id="ev-date" type="date" required value={value.date} onInput={set("date")} />
        </span>
        <span>
          <label for="ev-start">{t("gameEvent.starts")}</label>
          <input id="ev-start" type="time" required value={value.start} onInput={set("start")} />
        </span>
        <span>
          <label for="ev-end">{t("gameEvent.ends")}</label>
          <input id="ev-end" type="time" required value={value.end} onInput={set("end")} />
        </span>
      </div>
      <label for="ev-tz">{t("gameEvent.timeZone")}</label>
      <input id="ev-tz" required value={value.timeZone} onInput={set("timeZone")} placeholder={ZONE_EXAMPLE} />
    </fieldset>
  );
}

/** "18:00-20:00 on 2026-12-05 (Europe/Berlin)", with the event's .ics. */
export function EventSummary({ id, event }: { id: number | string; event: EventInfo | undefined }) {
  if (!event) return null;
  return (
    <p data-testid="event-when">
      <b>{t("gameEvent.event")}</b> {event.date}, {event.start}–{event.end} ({event.timeZone}) ·{" "}
      <a href={`/api/caches/${encodeURIComponent(String(id))}/event.ics`} download>
        {t("gameEvent.addToCalendar")}
      </a>
    </p>
  );
}
