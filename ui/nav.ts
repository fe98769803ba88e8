/** The navigation bar, in order. Each part of the app adds its page here. */
export interface NavItem {
  href: string;
  label: string;
  /** shown only to an operator of this instance (GET /api/admin/whoami) */
  sysop?: boolean;
  /** shown only to a signed-in user whose callsign is verified */
  verified?: boolean;
}

export const NAV: NavItem[] = [
  { href: "/map", label: "Map" },
  { href: "/hide", label: "Hide" },
  { href: "/activity", label: "Activity" },
  { href: "/leaderboard", label: "Leaderboard" },
  { href: "/trackables", label: "Trackables" },
  { href: "/lists", label: "Lists" },
  { href: "/decode", label: "Decode" },
  { href: "/peers", label: "Peers", sysop: true },
  { href: "/messages", label: "Messages", verified: true },
  { href: "/radio", label: "Radio" },
  { href: "/bbs", label: "BBS" },
  { href: "/sysop/bbs", label: "Forwarding", sysop: true },
  { href: "/offline", label: "Offline" },
  { href: "/about", label: "About" },
  { href: "/account", label: "Account" },
];
