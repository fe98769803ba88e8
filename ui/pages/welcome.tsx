/**
 * The newcomer's welcome on the home map: what this is, in a line, with
 * sign-in, "find caches" and, for the operator (set-up still needed, or a
 * sysop), the getting-started checklist on /setup. A small panel over the map's foot,
 * shown to the signed-out and the operator until dismissed (kept in this
 * browser).
 */
import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { useLoad } from "../hooks.ts";
import { loadAccount } from "../account/session.ts";
import { t } from "../i18n/i18n.ts";

const DISMISSED = "svc.welcome";

function dismissedHere(): boolean {
  try {
    return localStorage.getItem(DISMISSED) === "dismissed";
  } catch {
    return false;
  }
}

export function Welcome() {
  const [gone, setGone] = useState(dismissedHere);
  const account = useLoad(loadAccount);
  const setup = useLoad(() => api<{ needed: boolean }>("/api/setup").catch(() => ({ needed: false })));
  const who = useLoad(() => api<{ operator: boolean }>("/api/admin/whoami").catch(() => ({ operator: false })));
  if (gone || account.loading || setup.loading || who.loading) return null;
  const signedIn = !!account.data;
  const operator = setup.data?.needed === true || who.data?.operator === true;
  if (signedIn && !operator) return null;
  const dismiss = () => {
    setGone(true);
    try {
      localStorage.setItem(DISMISSED, "dismissed");
    } catch {
      // shown again next time
    }
  };
  // to the map's markers: one tab stop, the arrow keys move between them (ui/map/keyboard.ts)
  const findCaches = () => {
    const stop = document.querySelector<HTMLElement>('.leaflet-marker-pane [tabindex="0"]') ?? document.querySelector<HTMLElement>(".leaflet-container");
    stop?.focus();
  };
  return (
    <div class="welcome" role="region" aria-label={t("welcome.region")} data-testid="welcome">
      <p>{t("welcome.what")}</p>
      {!signedIn && (
        <a class="button primary" href="/account">
          {t("welcome.signIn")}
        </a>
      )}
      <button type="button" onClick={findCaches}>
        {t("welcome.findCaches")}
      </button>
      {operator && (
        <a class="button" href="/setup" data-testid="welcome-checklist" title={t("welcome.checklistTitle")}>
          {t("welcome.gettingStarted")}
        </a>
      )}
      <button type="button" class="welcome-close" aria-label={t("welcome.dismiss")} onClick={dismiss}>
        ×
      </button>
    </div>
  );
}
