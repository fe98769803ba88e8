/** Loading, empty and error states, the same on every page section. */
import type { ComponentChildren } from "preact";

export function Loading({ what }: { what: string }) {
  return (
    <p class="muted state-loading" role="status" aria-busy="true">
      Loading {what}…
    </p>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="muted state-empty">{children}</p>;
}

export function Failed({ error, what }: { error: Error; what: string }) {
  return (
    <p class="error state-error" role="alert">
      Could not load {what}: {error.message}
    </p>
  );
}
