/**
 * The header's search: stations by callsign prefix, caches by name or code,
 * BBS messages by subject, peers by name (GET /api/search). An ARIA 1.2
 * combobox: arrows move through the results, Enter opens one (the first when
 * none is chosen), Escape closes the list, then clears the box; "/" elsewhere
 * on the page focuses it.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { api } from "../api.ts";
import { StationSymbol } from "./station-symbol.tsx";
import { t } from "../i18n/i18n.ts";
import { typeLabel } from "../game/labels.ts";

interface Answer {
  stations: Array<{ call: string; kind: string; symbol: string | null; lastHeard: number }>;
  caches: Array<{ id: number | string; code: string; name: string; type: string; status: string }>;
  messages: Array<{ id: number; type: string; from: string; to: string; subject: string }>;
  peers: Array<{ instance: string; trust: string; url: string | null }>;
}
interface Option {
  group: string;
  href: string;
  label: string;
  detail: string;
  symbol?: string | null;
}

/** Results per section shown in the list. */
const PER_GROUP = 6;

function optionsOf(a: Answer): Option[] {
  return [
    ...a.stations.slice(0, PER_GROUP).map((s) => ({
      group: t("search.stations"),
      href: `/station/${encodeURIComponent(s.call)}`,
      label: s.call,
      detail: s.kind === "station" ? t("search.station") : s.kind,
      symbol: s.symbol,
    })),
    ...a.caches.slice(0, PER_GROUP).map((c) => ({
      group: t("search.caches"),
      href: `/cache/${encodeURIComponent(String(c.id))}`,
      label: c.name,
      detail: `${c.code} · ${typeLabel(c.type)}${c.status === "active" ? "" : ` · ${t(`cacheStatus.${c.status}`, { defaultValue: c.status })}`}`,
    })),
    ...a.messages.slice(0, PER_GROUP).map((m) => ({
      group: t("search.bbs"),
      href: `/bbs/msg/${m.id}`,
      label: m.subject,
      detail: `${m.type === "B" ? t("search.bulletin") : t("search.mail")} ${m.from} → ${m.to}`,
    })),
    // A peer's own site when it has one; else the sysop's peers page.
    ...a.peers.slice(0, PER_GROUP).map((p) => ({
      group: t("search.peers"),
      href: p.url ?? `/peers#${encodeURIComponent(p.instance)}`,
      label: p.instance,
      detail: `${t("search.peer", { trust: p.trust })}${p.url ? " · " + p.url.replace(/^https:\/\//, "") : ""}`,
    })),
  ];
}

export function SearchBox() {
  const { route } = useLocation();
  const [q, setQ] = useState("");
  const [open, setOpen] = useState(false);
  // The chosen option by its link, so it stays chosen when newer results arrive.
  const [activeHref, setActiveHref] = useState<string | null>(null);
  const [state, setState] = useState<{ options: Option[]; loading: boolean; error: string | null; for: string }>({
    options: [],
    loading: false,
    error: null,
    for: "",
  });
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const input = useRef<HTMLInputElement>(null);

  useEffect(() => {
    clearTimeout(timer.current);
    const term = q.trim();
    if (term.length < 2) {
      setState({ options: [], loading: false, error: null, for: term });
      return;
    }
    setState((s) => ({ ...s, loading: true, error: null }));
    const ctl = new AbortController();
    timer.current = setTimeout(() => {
      api<Answer>(`/api/search?q=${encodeURIComponent(term)}&limit=${PER_GROUP}`, { signal: ctl.signal }).then(
        (a) => {
          setState({ options: optionsOf(a), loading: false, error: null, for: term });
        },
        (e: Error) => e.name !== "AbortError" && setState({ options: [], loading: false, error: e.message, for: term }),
      );
    }, 200);
    return () => {
      clearTimeout(timer.current);
      ctl.abort();
    };
  }, [q]);

  // "/" anywhere but in a text field jumps to the search box.
  useEffect(() => {
    const onSlash = (e: KeyboardEvent) => {
      const t = e.target as HTMLElement | null;
      if (e.key !== "/" || e.ctrlKey || e.metaKey || e.altKey || (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName)))) return;
      e.preventDefault();
      input.current?.focus();
    };
    document.addEventListener("keydown", onSlash);
    return () => document.removeEventListener("keydown", onSlash);
  }, []);

  const go = (o: Option) => {
    setOpen(false);
    setQ("");
    setActiveHref(null);
    input.current?.blur();
    if (/^https?:\/\//.test(o.href)) location.assign(o.href);
    else route(o.href);
  };
  const opts = state.options;
  const active = opts.findIndex((o) => o.href === activeHref);
  const move = (by: 1 | -1) => {
    if (!opts.length) return;
    const from = active < 0 ? (by > 0 ? -1 : opts.length) : active;
    setActiveHref(opts[(from + by + opts.length) % opts.length]!.href);
  };
  const onKey = (e: KeyboardEvent) => {
    if (e.key === "ArrowDown") {
      e.preventDefault();
      setOpen(true);
      move(1);
    } else if (e.key === "ArrowUp") {
      e.preventDefault();
      setOpen(true);
      move(-1);
    } else if (e.key === "Enter") {
      e.preventDefault();
      // A chosen option opens even while newer results load; the first only once they are in.
      const o = active >= 0 ? opts[active] : state.loading ? undefined : opts[0];
      if (o) go(o);
    } else if (e.key === "Escape") {
      e.preventDefault();
      if (open) setOpen(false);
      else setQ("");
      setActiveHref(null);
    }
  };
  const shown = open && q.trim().length >= 2;
  let lastGroup = "";
  return (
    <div class="search">
      <input
        ref={input}
        type="search"
        role="combobox"
        list={undefined}
        aria-label={t("search.label")}
        placeholder={t("search.placeholder")}
        aria-expanded={shown}
        aria-controls="search-results"
        aria-autocomplete="list"
        aria-activedescendant={shown && active >= 0 ? `search-opt-${active}` : undefined}
        autocomplete="off"
        maxLength={100}
        spellcheck={false}
        value={q}
        onInput={(e) => {
          setQ((e.target as HTMLInputElement).value);
          setOpen(true);
        }}
        onKeyDown={onKey}
        onFocus={() => setOpen(true)}
        // Options take the mouse on mousedown without taking focus, so a blur is always a leave.
        onBlur={() => setOpen(false)}
      />
      {shown && (
        <div class="search-panel">
          <ul id="search-results" role="listbox" aria-label={t("search.results")}>
            {opts.map((o, k) => {
              const head = o.group !== lastGroup;
              lastGroup = o.group;
              return (
                <li
                  id={`search-opt-${k}`}
                  role="option"
                  aria-selected={k === active}
                  class={`${k === active ? "active" : ""}${head ? " first" : ""}`}
                  data-group={o.group}
                  onMouseDown={(e) => {
                    e.preventDefault();
                    go(o);
                  }}
                  onMouseEnter={() => setActiveHref(o.href)}
                >
                  {head && (
                    <span class="search-group" aria-hidden="true">
                      {o.group}
                    </span>
                  )}
                  <span class="search-label">
                    {o.symbol !== undefined && <StationSymbol symbol={o.symbol} />} {o.label}
                  </span>
                  <span class="search-detail">{o.detail}</span>
                </li>
              );
            })}
          </ul>
          <p class="search-state muted" role="status">
            {state.loading
              ? t("search.searching")
              : state.error
                ? t("search.failed", { reason: state.error })
                : opts.length === 0 && state.for === q.trim()
                  ? t("search.nothing", { q: q.trim() })
                  : ""}
          </p>
        </div>
      )}
    </div>
  );
}
