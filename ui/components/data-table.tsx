/**
 * A table of rows, or one line saying there are none. On a phone it scrolls
 * sideways, or with `stacked` each row becomes a card of captioned cells
 * (table.stacked in styles.css; the captions are the cells' data-label).
 */
import type { ComponentChildren } from "preact";
import { Empty } from "./states.tsx";

export function DataTable<T>(props: {
  testid?: string;
  head: string[];
  rows: readonly T[];
  /** what is said when there are no rows (without it, nothing is shown) */
  empty?: string;
  /** the row's cells, in the order of `head` */
  cells: (row: T) => ComponentChildren[];
  /** attributes of a row's <tr>, e.g. a data- attribute for tests */
  rowAttrs?: (row: T) => Record<string, string>;
  /** rows become cards on a narrow screen */
  stacked?: boolean;
}) {
  if (props.rows.length === 0) return props.empty ? <Empty>{props.empty}</Empty> : null;
  return (
    <div class="table-scroll">
      <table class={props.stacked ? "table stacked" : "table"} data-testid={props.testid}>
        <thead>
          <tr>
            {props.head.map((h) => (
              <th>{h}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.rows.map((r) => (
            <tr {...props.rowAttrs?.(r)}>
              {props.cells(r).map((c, i) => (
                <td data-label={props.head[i] || undefined}>{c}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
