import { useEffect, useState } from "preact/hooks";

/** Loads once per `key` change: { data, error, loading }. */
export function useLoad<T>(load: () => Promise<T>, key: unknown[] = []) {
  const [state, setState] = useState<{ data?: T; error?: Error; loading: boolean }>({ loading: true });
  useEffect(() => {
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
