/**
 * One drawing of everything the map's layers show (stations, caches): their
 * points are grouped together on screen, so a group says how many of each it
 * holds in one bubble instead of two bubbles on top of each other, and every
 * label is placed against every marker. A layer hands its points (and the
 * server's clusters) to `set`; the crowd redraws on the next frame, and again
 * after a zoom. Markers already drawn are kept and moved, not made again; new
 * ones are made a frame's budget at a time, then the labels are placed.
 */
import L from "leaflet";
import { t } from "../i18n/i18n.ts";
import { rovingMarkers } from "./keyboard.ts";
import { bubble, groupByPixels, groupSize, LABEL_H, labelWidth, openGroup, placeLabels, type Box, type Group, type Item, type Single } from "./declutter.ts";

/** How a layer draws its own points. */
export interface Kind<T> {
  /** "stations", "caches": the group bubble's part is `.${cluster}` */
  name: string;
  cluster: string;
  /** lower first: in a group's bubble (left to right), and who stays put when two singles meet */
  order: number;
  /** singular and plural nouns, for titles */
  noun: [string, string];
  key(o: T): string;
  /** the marker's class and inner HTML; the label, if any, is its `.map-label` */
  className(o: T): string;
  html(o: T): string;
  title(o: T): string;
  label(o: T): { text: string; prio: number };
  /** events on a new marker (popups, clicks) */
  bind(o: T, m: L.Marker): void;
  /** Enter or Space on the focused marker (ui/map/keyboard.ts); a click when not given */
  open?(o: T): void;
  /** list entries for a group's popup: the given points, or (`partial`) those the server has in a box */
  list(points: T[], partial: { bbox: [number, number, number, number] } | null): Promise<{ html: string; shown: number }>;
}

export interface KindCount {
  /** in view */
  total: number;
  /** drawn as their own marker (the rest are in groups) */
  shown: number;
}

export interface Crowd {
  set<T>(kind: Kind<T>, items: Array<Omit<Item<T>, "kind">>): void;
  /** redraw now (a layer's point moved) */
  redraw(): void;
  remove(name: string): void;
  count(name: string): KindCount | null;
}

const ICON = 24;
const crowds = new WeakMap<L.Map, Crowd>();

/** The map's crowd (one per map, shared by its layers). */
export function crowdOf(map: L.Map, onCount?: (name: string, c: KindCount) => void): Crowd {
  const existing = crowds.get(map);
  if (existing) return existing;
  const layer = L.layerGroup().addTo(map);
  const roving = rovingMarkers(map);
  const kinds = new Map<string, { kind: Kind<any>; items: Array<Item<any>> }>();
  const counts = new Map<string, KindCount>();
  const drawn = new Map<string, { m: L.Marker; html: string }>();
  let frame = 0;
  /** what the label pass needs of the last drawing */
  let labelled: Array<{ kind: Kind<any>; one: any; lat: number; lon: number; key: string; shift: number }> = [];
  let groups: Array<{ lat: number; lon: number; w: number; h: number }> = [];

  /** "3 stations", "1 cache" in the reader's words (ui/i18n `map.stations`, `map.caches`), else the kind's own noun. */
  const howMany = (kind: Kind<any>, n: number) => t(`map.${kind.name}`, { count: n, n, defaultValue: `${n} ${kind.noun[n === 1 ? 0 : 1]}` });

  const groupHtml = (g: Group<any>) => {
    const parts = [...kinds.values()].filter(({ kind }) => g.counts[kind.name]);
    const html = parts
      .map(
        ({ kind }) =>
          `<span class="${kind.cluster}" style="width:${bubble(g.counts[kind.name]!)}px;height:${bubble(g.counts[kind.name]!)}px">${g.counts[kind.name]}</span>`,
      )
      .join("");
    const { w, h } = groupSize(g.counts);
    const title = parts.map(({ kind }) => howMany(kind, g.counts[kind.name]!)).join(", ");
    return { html, w, h, title };
  };

  const listPopup = async (g: Group<any>) => {
    const sections: string[] = [];
    for (const { kind } of kinds.values()) {
      const n = g.counts[kind.name];
      if (!n) continue;
      const mine = g.members.filter((m) => m.kind === kind.name).map((m) => m.one);
      const r = await kind.list(mine, g.partial.includes(kind.name) ? { bbox: g.bbox } : null);
      sections.push(
        `<b>${howMany(kind, n)}</b><ul class="group-list">${r.html}</ul>${n > r.shown ? `<p class="muted">${t("mapGroup.more", { n: n - r.shown })}</p>` : ""}`,
      );
    }
    L.popup({ maxHeight: 280 }).setLatLng([g.lat, g.lon]).setContent(sections.join("")).openOn(map);
  };

  const render = () => {
    frame = 0;
    const items = [...kinds.values()].flatMap((k) => k.items);
    const out = groupByPixels(map, items);
    const wanted = new Set<string>();
    const shown = new Map<string, number>();
    labelled = [];
    groups = [];
    const want = (key: string, lat: number, lon: number, html: string, make: () => L.Marker) => {
      wanted.add(key);
      const d = drawn.get(key);
      if (d && d.html === html) {
        const at = d.m.getLatLng();
        if (at.lat !== lat || at.lng !== lon) d.m.setLatLng([lat, lon]);
        return;
      }
      if (d) layer.removeLayer(d.m), drawn.delete(key);
      pending.push({ key, html, make });
    };
    const pending: Array<{ key: string; html: string; make: () => L.Marker }> = [];
    // Singles of one kind on top of another kind's (a station at a cache) are drawn side by side: the later kind moves right.
    const firstKind = [...kinds.keys()][0];
    const taken: Box[] = [];
    for (const o of out)
      if ("one" in o && o.kind === firstKind) {
        const p = map.latLngToContainerPoint([o.lat, o.lon]);
        taken.push([p.x - ICON / 2, p.y - ICON / 2, p.x + ICON / 2, p.y + ICON / 2]);
      }
    const shiftOf = (o: Single<any>) => {
      if (o.kind === firstKind) return 0;
      const p = map.latLngToContainerPoint([o.lat, o.lon]);
      const b: Box = [p.x - ICON / 2, p.y - ICON / 2, p.x + ICON / 2, p.y + ICON / 2];
      return taken.some((t) => t[0] < b[2] && b[0] < t[2] && t[1] < b[3] && b[1] < t[3]) ? ICON - 4 : 0;
    };
    for (const o of out) {
      if ("one" in o) {
        const s = o as Single<any>;
        const kind = kinds.get(s.kind)!.kind;
        const key = `${kind.name}:${kind.key(s.one)}`;
        const html = kind.html(s.one);
        shown.set(kind.name, (shown.get(kind.name) ?? 0) + 1);
        const shift = shiftOf(s);
        labelled.push({ kind, one: s.one, lat: s.lat, lon: s.lon, key, shift });
        want(key, s.lat, s.lon, kind.className(s.one) + html + shift, () => {
          const m = L.marker([s.lat, s.lon], {
            icon: L.divIcon({ className: `${kind.className(s.one)} map-point`, html, iconSize: [ICON, ICON], iconAnchor: [ICON / 2 - shift, ICON / 2] }),
            title: kind.title(s.one),
            keyboard: false,
          });
          kind.bind(s.one, m);
          m.once("add", () => roving.add(m.getElement()!, kind.title(s.one), kind.open ? () => kind.open!(s.one) : () => m.fire("click")));
          return m;
        });
      } else {
        const g = o as Group<any>;
        const { html, w, h, title } = groupHtml(g);
        groups.push({ lat: g.lat, lon: g.lon, w, h });
        want(`g:${g.lat.toFixed(5)}:${g.lon.toFixed(5)}:${g.count}`, g.lat, g.lon, html, () => {
          const m = L.marker([g.lat, g.lon], {
            icon: L.divIcon({ className: "map-cluster", html, iconSize: [w, h], iconAnchor: [w / 2, h / 2] }),
            title: t("mapGroup.zoomIn", { title }),
            zIndexOffset: 1000,
            keyboard: false,
          });
          m.on("click", () => openGroup(map, g, () => void listPopup(g).catch(() => {})));
          m.once("add", () => roving.add(m.getElement()!, t("mapGroup.openGroup", { title }), () => m.fire("click")));
          return m;
        });
      }
    }
    for (const [k, d] of drawn) if (!wanted.has(k)) layer.removeLayer(d.m), drawn.delete(k);
    for (const [name, { items: its }] of kinds) {
      const c = { total: its.reduce((t, i) => t + i.count, 0), shown: shown.get(name) ?? 0 };
      counts.set(name, c);
      onCount?.(name, c);
    }
    // New markers are made a few milliseconds' worth per frame, so a redraw never holds the map still for long.
    queue = pending;
    cancelAnimationFrame(building);
    map.getContainer().dataset.drawing = "1";
    build();
  };

  let queue: Array<{ key: string; html: string; make: () => L.Marker }> = [];
  let building = 0;
  const BUDGET_MS = 12;
  const build = () => {
    building = 0;
    const until = performance.now() + BUDGET_MS;
    while (queue.length && performance.now() < until) {
      const w = queue.shift()!;
      drawn.set(w.key, { m: w.make().addTo(layer), html: w.html });
    }
    if (queue.length) building = requestAnimationFrame(build);
    else {
      placeAll();
      roving.refresh();
      // what a test or a bench waits for: every marker made and labelled
      map.getContainer().dataset.drawing = "0";
    }
  };

  const placeAll = () => {
    const size = map.getSize();
    const labels = labelled.map((l) => {
      const p = map.latLngToContainerPoint([l.lat, l.lon]).add([l.shift, 0]);
      const { text, prio } = l.kind.label(l.one);
      return { icon: [p.x - ICON / 2, p.y - ICON / 2, p.x + ICON / 2, p.y + ICON / 2] as Box, w: labelWidth(text), h: LABEL_H, prio };
    });
    const obstacles = groups.map((g) => {
      const p = map.latLngToContainerPoint([g.lat, g.lon]);
      return [p.x - g.w / 2, p.y - g.h / 2, p.x + g.w / 2, p.y + g.h / 2] as Box;
    });
    const sides = placeLabels(labels, obstacles, [0, 0, size.x, size.y]);
    labelled.forEach((l, i) => {
      const el = drawn.get(l.key)?.m.getElement();
      if (!el) return;
      el.classList.toggle("label-right", sides[i] === "right");
      el.classList.toggle("label-left", sides[i] === "left");
    });
  };

  let gone = false;
  const schedule = () => {
    if (!frame && !gone) frame = requestAnimationFrame(render);
  };
  map.on("zoomend", schedule);
  map.on("unload", () => {
    gone = true;
    cancelAnimationFrame(frame);
    cancelAnimationFrame(building);
  });
  const crowd: Crowd = {
    set(kind, items) {
      kinds.set(kind.name, { kind, items: items.map((i) => ({ ...i, kind: kind.name })) });
      // the same order whichever layer's answer came first
      const sorted = [...kinds].sort((a, b) => a[1].kind.order - b[1].kind.order);
      kinds.clear();
      for (const [k, v] of sorted) kinds.set(k, v);
      schedule();
    },
    redraw: schedule,
    remove(name) {
      kinds.delete(name);
      schedule();
    },
    count: (name) => counts.get(name) ?? null,
  };
  crowds.set(map, crowd);
  return crowd;
}
