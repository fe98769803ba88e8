/** Pieces the account page's sections share. */
import { useState } from "preact/hooks";
import type { ComponentChildren } from "preact";
import type { Account } from "./session.ts";

export interface SectionProps {
  account: Account;
  onChange: (a: Account) => void;
  refresh: () => void;
  onSignedOut: (notice?: string) => void;
}

/** Runs an action, showing its error next to the section that started it. */
export function useAction() {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const run = async (f: () => Promise<unknown>) => {
    setError(null);
    setBusy(true);
    try {
      await f();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const errorView = error ? (
    <p class="error" role="alert">
      {error}
    </p>
  ) : null;
  return { run, busy, errorView };
}

export function Section(props: { title: string; id: string; children: ComponentChildren }) {
  return (
    <section class="card" aria-labelledby={props.id}>
      <h2 id={props.id}>{props.title}</h2>
      {props.children}
    </section>
  );
}
