/** The navigation bar, in order. Each part of the app adds its page here. */
export interface NavItem {
  href: string;
  /** the key of its label in ui/i18n (nav.*) */
  label: string;
  /** shown only to an operator of this instance (GET /api/admin/whoami) */
  sysop?: boolean;
  /** shown only to a signed-in user whose callsign is verified */
  verified?: boolean;
}

export const NAV: NavItem[] = [
  { href: "/map", label: "nav.map" },
  { href: "/hide", label: "nav.hide" },
  { href: "/activity", label: "nav.activity" },
  { href: "/leaderboard", label: "nav.leaderboard" },
  { href: "/trackables", label: "nav.trackables" },
  { href: "/lists", label: "nav.lists" },
  { href: "/decode", label: "nav.decode" },
  { href: "/peers", label: "nav.peers", sysop: true },
  { href: "/messages", label: "nav.messages", verified: true },
  { href: "/radio", label: "nav.radio" },
  { href: "/bbs", label: "nav.bbs" },
  { href: "/sysop/bbs", label: "nav.forwarding", sysop: true },
  { href: "/offline", label: "nav.offline" },
  { href: "/about", label: "nav.about" },
  { href: "/account", label: "nav.account" },
];
