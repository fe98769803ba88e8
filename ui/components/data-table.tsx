/** A table of rows that scrolls sideways on a phone, or one line saying there are none. */
import type { ComponentChildren } from "preact";
import { Empty } from "./states.tsx";

export function DataTable<T>(props: {
  testid?: string;
  head: string[];
  rows: readonly T[];
  /** what is said when there are no rows */
  empty: string;
  /** the row's cells, in the order of `head` */
  cells: (row: T) => ComponentChildren[];
  /** attributes of a row's <tr>, e.g. a data- attribute for tests */
  rowAttrs?: (row: T) => Record<string, string>;
}) {
  if (props.rows.length === 0) return <Empty>{props.empty}</Empty>;
  return (
    <div class="table-scroll">
      <table class="table" data-testid={props.testid}>
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
              {props.cells(r).map((c) => (
                <td>{c}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
