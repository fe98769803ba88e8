/**
 * The map's markers for the keyboard: one tab stop for the whole marker
 * layer (a roving tabindex), the arrow keys move to the nearest marker in
 * that direction on screen, and Enter or Space opens the focused marker (a
 * station's or cache's page, a group as a click does). The crowd
 * (ui/map/crowd.ts) hands each marker's element and what opening it does.
 */
import type L from "leaflet";
import { t } from "../i18n/i18n.ts";

const SELECTOR = ".map-point, .map-cluster";
const DIRS: Record<string, [number, number]> = { ArrowRight: [1, 0], ArrowLeft: [-1, 0], ArrowDown: [0, 1], ArrowUp: [0, -1] };

export interface Roving {
  /** a new marker: out of the tab order until it is the stop, named, opened by `open` */
  add(el: HTMLElement, name: string, open: () => void): void;
  /** after a redraw: exactly one marker is the tab stop (the focused one kept, or the nearest the centre) */
  refresh(): void;
}

const centre = (el: Element) => {
  const r = el.getBoundingClientRect();
  return [r.left + r.width / 2, r.top + r.height / 2] as const;
};

/** The nearest marker from `from` in direction `d`: within 60 degrees of it, the closest, sideways steps weighing double. */
function nearest(from: Element, all: Element[], d: [number, number]): Element | null {
  const [x0, y0] = centre(from);
  let best: Element | null = null;
  let bestScore = Infinity;
  for (const el of all) {
    if (el === from) continue;
    const [x, y] = centre(el);
    const along = (x - x0) * d[0] + (y - y0) * d[1];
    const across = Math.abs((x - x0) * d[1] + (y - y0) * d[0]);
    if (along <= 0 || across > along * 1.8) continue;
    const score = along + 2 * across;
    if (score < bestScore) (best = el), (bestScore = score);
  }
  return best;
}

export function rovingMarkers(map: L.Map): Roving {
  const pane = map.getPane("markerPane")!;
  pane.setAttribute("role", "group");
  pane.setAttribute("aria-label", t("map.keyboard"));
  const openers = new WeakMap<Element, () => void>();
  let within = false;
  const markers = () => [...pane.querySelectorAll<HTMLElement>(SELECTOR)];
  const stopAt = (el: HTMLElement, focus: boolean) => {
    for (const m of pane.querySelectorAll<HTMLElement>(`${SELECTOR}[tabindex="0"]`)) if (m !== el) m.tabIndex = -1;
    el.tabIndex = 0;
    if (focus) el.focus({ preventScroll: true });
  };
  pane.addEventListener("focusin", () => (within = true));
  pane.addEventListener("focusout", (e) => {
    // a marker taken away while focused leaves the focus nowhere (null): the next drawing gives it back
    const to = (e as FocusEvent).relatedTarget as Node | null;
    if (to && !pane.contains(to)) within = false;
  });
  pane.addEventListener("keydown", (e) => {
    const el = (e.target as HTMLElement).closest?.(SELECTOR) as HTMLElement | null;
    if (!el) return;
    const d = DIRS[e.key];
    if (d) {
      e.preventDefault();
      e.stopPropagation();
      const next = nearest(el, markers(), d);
      if (next) stopAt(next as HTMLElement, true);
    } else if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      e.stopPropagation();
      openers.get(el)?.();
    }
  });
  return {
    add(el, name, open) {
      el.tabIndex = -1;
      el.setAttribute("role", "button");
      el.setAttribute("aria-label", name);
      openers.set(el, open);
    },
    refresh() {
      const all = markers();
      if (!all.length) return;
      const active = document.activeElement;
      if (active && all.includes(active as HTMLElement)) return stopAt(active as HTMLElement, false);
      const kept = all.find((m) => m.tabIndex === 0);
      const size = map.getSize();
      const box = map.getContainer().getBoundingClientRect();
      const [cx, cy] = [box.left + size.x / 2, box.top + size.y / 2];
      const dist = (m: Element) => {
        const [x, y] = centre(m);
        return (x - cx) ** 2 + (y - cy) ** 2;
      };
      const stop = kept ?? all.reduce((a, b) => (dist(b) < dist(a) ? b : a));
      // the focused marker went in a redraw (a group opened, a poll): focus stays on the layer
      stopAt(stop, within && (active === document.body || active === null));
    },
  };
}
