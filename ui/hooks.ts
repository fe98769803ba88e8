import { useEffect, useRef, useState } from "preact/hooks";
import { takeFirstAnswer } from "./api.ts";

/**
 * Loads once per `key` change: { data, error, loading }. With `first` (the GET
 * path `load` asks): an answer to it that the page came with (ui/api.ts
 * takeFirstAnswer) is the first state, drawn at once and not asked for again.
 */
export function useLoad<T>(load: () => Promise<T>, key: unknown[] = [], first?: string) {
  const seeded = useRef<boolean | null>(null);
  const [state, setState] = useState<{ data?: T; error?: Error; loading: boolean }>(() => {
    const a = first ? takeFirstAnswer<T>(first) : undefined;
    seeded.current = !!a;
    return a ? { data: a.value, loading: false } : { loading: true };
  });
  useEffect(() => {
    if (seeded.current) {
      seeded.current = false;
      return;
    }
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => live && setState({ data, loading: false }),
      (error) => live && setState({ error, loading: false }),
    );
    return () => {
      live = false;
    };
  }, key);
  return state;
}

/**
 * A counter that goes up every `ms` while the page is visible (and once when
 * it becomes visible again): pass it in useLoad's key to refresh periodically.
 */
export function usePoll(ms: number): number {
  const [n, setN] = useState(0);
  useEffect(() => {
    const bump = () => document.visibilityState === "visible" && setN((k) => k + 1);
    const t = setInterval(bump, ms);
    document.addEventListener("visibilitychange", bump);
    return () => {
      clearInterval(t);
      document.removeEventListener("visibilitychange", bump);
    };
  }, [ms]);
  return n;
}
