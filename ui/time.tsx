/**
 * The one way the web app shows a time: relative ("3 min ago", "in 10 min",
 * "2 d ago"), with the full local date and time in the tooltip and in the
 * <time> element's dateTime for machines.
 */

export function ago(ms: number, now = Date.now()): string {
  const s = Math.round((now - ms) / 1000);
  if (s < 0) return "in " + span(-s);
  if (s < 5) return "just now";
  return span(s) + " ago";
}

function span(s: number): string {
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  if (s < 60 * 86_400) return `${Math.floor(s / 86_400)} d`;
  if (s < 730 * 86_400) return `${Math.floor(s / (30 * 86_400))} months`;
  return `${Math.floor(s / (365 * 86_400))} years`;
}

/** The absolute form, for tooltips: the visitor's own locale and time zone. */
export const absolute = (ms: number) => new Date(ms).toLocaleString();

export function When({ at, never = "never" }: { at: number | null | undefined; never?: string }) {
  if (!at) return <span class="muted">{never}</span>;
  return (
    <time dateTime={new Date(at).toISOString()} title={absolute(at)}>
      {ago(at)}
    </time>
  );
}
