/** Pieces the account page's sections share. */
import type { ComponentChildren } from "preact";
import type { Account } from "./session.ts";

export interface SectionProps {
  account: Account;
  onChange: (a: Account) => void;
  refresh: () => void;
  onSignedOut: (notice?: string) => void;
}

export function Section(props: { title: string; id: string; children: ComponentChildren }) {
  return (
    <section class="card" aria-labelledby={props.id}>
      <h2 id={props.id}>{props.title}</h2>
      {props.children}
    </section>
  );
}
