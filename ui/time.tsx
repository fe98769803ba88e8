/** Times on the radio page: "12 s ago", with the full date on hover. */

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
  return `${Math.floor(s / 86_400)} d`;
}

export function When({ at, never = "never" }: { at: number | null | undefined; never?: string }) {
  if (!at) return <span class="muted">{never}</span>;
  return (
    <time dateTime={new Date(at).toISOString()} title={new Date(at).toLocaleString()}>
      {ago(at)}
    </time>
  );
}
