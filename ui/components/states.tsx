/** Loading, empty and error states, the same on every page section. */
import type { ComponentChildren } from "preact";
import { t } from "../i18n/i18n.ts";

export function Loading({ what }: { what: string }) {
  return (
    <p class="muted state-loading" role="status" aria-busy="true">
      {t("state.loading", { what })}
    </p>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="muted state-empty">{children}</p>;
}

export function Failed({ error, what }: { error: Error; what: string }) {
  return (
    <p class="error state-error" role="alert">
      {t("state.couldNotLoad", { what, reason: error.message })}
    </p>
  );
}
