import { h } from "preact";
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

/**
 * Runs an action (an API call and what follows it) for a form or button:
 * `busy` while it runs, and its error, in words (`describe`, the error's
 * message by default), shown by `errorView` beside what started it.
 * `setError` says a fault found before anything is sent.
 */
export function useAction() {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const run = async (f: () => Promise<unknown>, describe: (e: unknown) => string = (e) => (e as Error).message) => {
    setError(null);
    setBusy(true);
    try {
      await f();
    } catch (e) {
      setError(describe(e));
    } finally {
      setBusy(false);
    }
  };
  const errorView = error ? h("p", { class: "error", role: "alert" }, error) : null;
  return { run, busy, error, setError, errorView };
}
