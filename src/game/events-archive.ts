/**
 * Past events archive themselves: the `events-archive` job archives each
 * event or cito cache EVENT_ARCHIVE_AFTER_MS after it ended (its record is
 * published again, archived), leaving that time for Attended logs.
 */
import type { Core } from "../core/core.ts";
import { setCacheState } from "./cache-writes.ts";
import { pastEvents } from "./events.ts";

export function archivePastEvents(gw: Core): { archived: number } {
  const ids = pastEvents(gw);
  if (ids.length) gw.db.transaction(() => ids.forEach((id) => setCacheState(gw, id, { status: "archived" })))();
  return { archived: ids.length };
}
