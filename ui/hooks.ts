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
