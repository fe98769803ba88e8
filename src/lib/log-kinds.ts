/** A log's kinds, shared by the federation codec, the game and the web app (pure data). */

/** A log's kind on the wire's `kind`: what every version knows. */
export const WIRE_FIND_KINDS = ["find", "dnf", "note"] as const;
export type WireFindKind = (typeof WIRE_FIND_KINDS)[number];
/** The kinds `logKind` names (docs/protocol.md "Log kinds"); any other is shown as a note. */
export const FIND_LOG_KINDS = [
  ...WIRE_FIND_KINDS,
  "needs-maintenance",
  "needs-archive",
  "owner-maintenance",
  "temp-disable",
  "enable",
  "archive",
  "reviewer-note",
  "will-attend",
  "attended",
] as const;
export type FindLogKind = (typeof FIND_LOG_KINDS)[number];
