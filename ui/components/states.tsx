/**
 * Loading, empty and error states, said and drawn the same way on every page
 * section: `Loading`, `Empty` and `Failed` each alone, or `LoadState` choosing
 * one from a loaded state (ui/hooks.ts useLoad). Each carries `data-state`.
 */
import type { ComponentChildren } from "preact";
import { t } from "../i18n/i18n.ts";

export function Loading({ what }: { what: string }) {
  return (
    <p class="muted state-loading" role="status" aria-busy="true" data-state="loading">
      {t("state.loading", { what })}
    </p>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return (
    <p class="muted state-empty" data-state="empty">
      {children}
    </p>
  );
}

export function Failed({ error, what }: { error: Error; what: string }) {
  return (
    <p class="error state-error" role="alert" data-state="error">
      {t("state.couldNotLoad", { what, reason: error.message })}
    </p>
  );
}

/**
 * A list's three states besides its content: could not load (with the
 * reason), loading, and `empty` (its words) when there is nothing there yet.
 * Once data is at hand, a later error or reload shows nothing here.
 */
export function LoadState({ state, what, empty }: { state: { loading: boolean; error?: Error; data?: unknown }; what: string; empty?: string | false | null }) {
  if (state.error && !state.data) return <Failed error={state.error} what={what} />;
  if (state.loading && !state.data) return <Loading what={what} />;
  if (empty) return <Empty>{empty}</Empty>;
  return null;
}
