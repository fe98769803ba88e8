/**
 * Drawing a page again when the language or the units change, keeping its
 * state and data: preact-iso's Router keeps the page it matched until the URL
 * changes, so each route's component is wrapped once in one that listens.
 */
import type { ComponentType } from "preact";
import { useEffect, useState } from "preact/hooks";
import { onLocaleChange } from "./i18n.ts";

/** Re-renders the calling component after each change of language or units. */
export function useLocaleChange(): number {
  const [version, setVersion] = useState(0);
  useEffect(() => onLocaleChange(() => setVersion((v) => v + 1)), []);
  return version;
}

const wrapped = new Map<ComponentType<any>, ComponentType<any>>();

/** The page component, drawn again on a change of language or units (one wrapper per component, so routes keep their identity). */
export function localized<P extends object>(Page: ComponentType<P>): ComponentType<P> {
  let w = wrapped.get(Page);
  if (!w) {
    w = (props: P) => {
      useLocaleChange();
      return <Page {...props} />;
    };
    wrapped.set(Page, w);
  }
  return w as ComponentType<P>;
}
