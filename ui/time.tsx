/**
 * The one way the web app shows a time: relative ("3 min ago", "in 10 min",
 * "2 d ago", in the interface's language), with the full local date and time
 * in the tooltip and in the <time> element's dateTime for machines.
 */
import { fmtDateTime, t } from "./i18n/i18n.ts";

export function ago(ms: number, now = Date.now()): string {
  const s = Math.round((now - ms) / 1000);
  if (s < 0) return t("time.in", { span: span(-s) });
  if (s < 5) return t("time.justNow");
  return t("time.ago", { span: span(s) });
}

function span(s: number): string {
  if (s < 60) return t("time.s", { count: s });
  if (s < 3600) return t("time.min", { count: Math.floor(s / 60) });
  if (s < 86_400) return t("time.h", { count: Math.floor(s / 3600), min: Math.floor((s % 3600) / 60) });
  if (s < 60 * 86_400) return t("time.d", { count: Math.floor(s / 86_400) });
  if (s < 730 * 86_400) return t("time.months", { count: Math.floor(s / (30 * 86_400)) });
  return t("time.years", { count: Math.floor(s / (365 * 86_400)) });
}

/** The absolute form, for tooltips: the interface's locale and the visitor's time zone. */
export const absolute = (ms: number) => fmtDateTime(ms, { dateStyle: "medium", timeStyle: "medium" });

export function When({ at, never }: { at: number | null | undefined; never?: string }) {
  if (!at) return <span class="muted">{never ?? t("time.never")}</span>;
  return (
    <time dateTime={new Date(at).toISOString()} title={absolute(at)}>
      {ago(at)}
    </time>
  );
}
