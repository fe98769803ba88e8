import { LocationProvider, Router, Route, useLocation } from "preact-iso";
import { useEffect, useRef, useState } from "preact/hooks";
import { NAV } from "./nav.ts";
import { t } from "./i18n/i18n.ts";
import { LocalePicker, syncAccountPrefs } from "./i18n/picker.tsx";
import { localized } from "./i18n/localized.tsx";
import { api, clientConfig } from "./api.ts";
import { useLoad } from "./hooks.ts";
import { MapPage } from "./pages/map.tsx";
import { AboutPage } from "./pages/about.tsx";
import { NotFound } from "./pages/not-found.tsx";
import { SetupPage } from "./pages/setup.tsx";
import { DecodePage } from "./pages/decode.tsx";
import { StationPage } from "./pages/station.tsx";
import { AccountPage } from "./pages/account.tsx";
import { EmailLinkPage } from "./account/signin.tsx";
import { CachePage } from "./pages/cache.tsx";
import { ReviewPage } from "./pages/review.tsx";
import { HidePage } from "./pages/hide.tsx";
import { ActivityPage, LeaderboardPage, ProfilePage, SupportPage } from "./pages/game.tsx";
import { EmbedPage } from "./pages/embed.tsx";
import { PeersPage } from "./pages/peers.tsx";
import { BulletinsPage, ComposePage, MailboxPage, MessagePage, WhitePagesPage } from "./pages/bbs.tsx";
import { ForwardingPage } from "./pages/bbs-sysop.tsx";
import { RadioPage } from "./pages/radio.tsx";
import { SearchBox } from "./components/search-box.tsx";
import { OfflinePage } from "./pages/offline.tsx";
import { OfflineBar } from "./offline/bar.tsx";
import { ConversationPage, MessagesPage } from "./messages/page.tsx";
import { AlertToasts } from "./messages/alert-toasts.tsx";
import { loadAccount } from "./account/session.ts";
import { Welcome } from "./pages/welcome.tsx";
import { TagPage, TrackablePage, TrackablesPage } from "./trackables/page.tsx";
import { ListPage, ListsPage } from "./game/lists.tsx";

function Header() {
  const { path } = useLocation();
  const [open, setOpen] = useState(false);
  const toggle = useRef<HTMLButtonElement>(null);
  // Escape closes the phone menu and gives the focus back to its button.
  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "Escape") return;
      setOpen(false);
      toggle.current?.focus();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [open]);
  const cfg = useLoad(clientConfig);
  // Operator pages are in the operator's menu only (the server gates them anyway); asked again on navigation, so signing in or out shows.
  const who = useLoad(() => api<{ operator: boolean }>("/api/admin/whoami"), [path]);
  const operator = who.data?.operator === true;
  const account = useLoad(loadAccount, [path]);
  const verified = !!account.data?.call && account.data.verified;
  const signedIn = !!account.data;
  // a signed-in user's language and units follow them from device to device
  useEffect(() => {
    if (signedIn) syncAccountPrefs();
  }, [signedIn]);
  return (
    <header class="topbar">
      <a class="brand" href="/" aria-label={t("nav.home")}>
        <span class="brand-mark" aria-hidden="true">
          ◈
        </span>
        <span class="brand-name">{cfg.data?.instance && cfg.data.instance !== "local" ? cfg.data.instance : "svc-gateway"}</span>
      </a>
      <SearchBox />
      <button type="button" ref={toggle} class="menu-toggle" aria-expanded={open} aria-controls="nav" onClick={() => setOpen(!open)}>
        {t("nav.menu")}
      </button>
      <nav id="nav" class={open ? "open" : ""} onClick={() => setOpen(false)}>
        {NAV.filter((n) => (!n.sysop || operator) && (!n.verified || verified)).map((n) => (
          <a href={n.href} aria-current={path === n.href || path.startsWith(n.href + "/") ? "page" : undefined}>
            {t(n.label)}
          </a>
        ))}
        {!account.loading && !signedIn && <LocalePicker signedIn={false} compact />}
      </nav>
    </header>
  );
}

/** The first stop of every page for the keyboard: past the header and its menu, to the page itself. */
function SkipLink() {
  const skip = (e: Event) => {
    e.preventDefault();
    document.getElementById("main")?.focus();
  };
  return (
    // biome-ignore lint/a11y/useValidAnchor: a real link to the page's main part; the click only keeps the URL's hash (the set-up token lives there)
    <a class="skip-link" href="#main" onClick={skip}>
      {t("nav.skip")}
    </a>
  );
}

/** The newcomer's welcome, above the home map (ui/pages/welcome.tsx). */
function HomeWelcome() {
  const { path } = useLocation();
  return path === "/" || path === "/map" ? <Welcome /> : null;
}

/** `locale` changes with the language or units, so the header and the strips draw again. */
export function App(_: { locale?: number }) {
  // The embeddable map stands alone: no header, no navigation.
  if (typeof location !== "undefined" && location.pathname === "/embed") return <EmbedPage />;
  return (
    <LocationProvider>
      <SkipLink />
      <Header />
      <OfflineBar />
      <main id="main" tabIndex={-1}>
        <HomeWelcome />
        <Router>
          <Route path="/" component={localized(MapPage)} />
          <Route path="/map" component={localized(MapPage)} />
          <Route path="/about" component={localized(AboutPage)} />
          <Route path="/setup" component={localized(SetupPage)} />
          <Route path="/decode" component={localized(DecodePage)} />
          <Route path="/station/:call" component={localized(StationPage)} />
          <Route path="/account" component={localized(AccountPage)} />
          <Route path="/signin/email" component={localized(EmailLinkPage)} />
          <Route path="/cache/:id" component={localized(CachePage)} />
          <Route path="/hide" component={localized(HidePage)} />
          <Route path="/review" component={localized(ReviewPage)} />
          <Route path="/leaderboard" component={localized(LeaderboardPage)} />
          <Route path="/activity" component={localized(ActivityPage)} />
          <Route path="/profile/:call" component={localized(ProfilePage)} />
          <Route path="/support" component={localized(SupportPage)} />
          <Route path="/peers" component={localized(PeersPage)} />
          <Route path="/bbs" component={localized(MailboxPage)} />
          <Route path="/bbs/bulletins" component={localized(BulletinsPage)} />
          <Route path="/bbs/compose" component={localized(ComposePage)} />
          <Route path="/bbs/msg/:id" component={localized(MessagePage)} />
          <Route path="/bbs/wp" component={localized(WhitePagesPage)} />
          <Route path="/sysop/bbs" component={localized(ForwardingPage)} />
          <Route path="/radio" component={localized(RadioPage)} />
          <Route path="/messages" component={localized(MessagesPage)} />
          <Route path="/messages/:call" component={localized(ConversationPage)} />
          <Route path="/offline" component={localized(OfflinePage)} />
          <Route path="/trackables" component={localized(TrackablesPage)} />
          <Route path="/lists" component={localized(ListsPage)} />
          <Route path="/list/:id" component={localized(ListPage)} />
          <Route path="/trackable/:id" component={localized(TrackablePage)} />
          <Route path="/trackable/:id/tag" component={localized(TagPage)} />
          <Route default component={localized(NotFound)} />
        </Router>
      </main>
      <AlertToasts />
    </LocationProvider>
  );
}
