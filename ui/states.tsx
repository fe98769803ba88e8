import { t } from "./i18n/i18n.ts";

/**
 * A list's three states besides its content, said the same way on every page:
 * loading, could not load (with the reason), and nothing there yet.
 */
export function LoadState({ state, what, empty }: { state: { loading: boolean; error?: Error; data?: unknown }; what: string; empty?: string | false | null }) {
  if (state.error && !state.data)
    return (
      <p class="error" role="alert" data-state="error">
        {t("state.couldNotLoad", { what, reason: state.error.message })}
      </p>
    );
  if (state.loading && !state.data)
    return (
      <p class="muted" role="status" data-state="loading">
        {t("state.loading", { what })}
      </p>
    );
  if (empty)
    return (
      <p class="muted" data-state="empty">
        {empty}
      </p>
    );
  return null;
}
