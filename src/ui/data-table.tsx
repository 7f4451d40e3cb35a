/**
 * The one shape of every data table on the dashboard and the browse pages: a
 * box that scrolls sideways on a narrow screen, a table named by its caption
 * or by a heading elsewhere on the page, one row of column titles, then the
 * caller's rows. A column written `{ n: "Title" }` holds numbers: the shared
 * stylesheet's `.n` right-aligns its title as it does its cells.
 *
 * @example
 * <DataTable labelledBy="pools-heading" columns={["Region", { n: "Queues taking purges" }]}>
 *   {pools.map((p) => <tr>…</tr>)}
 * </DataTable>
 */
import type { Child, FC } from "hono/jsx";

export type ColumnTitle = string | { n: string };

export const DataTable: FC<{
  columns: readonly ColumnTitle[];
  caption?: string;
  labelledBy?: string;
  children?: Child;
}> = ({ columns, caption, labelledBy, children }) => (
  <div class="scroll">
    <table aria-labelledby={labelledBy}>
      {caption === undefined ? null : <caption>{caption}</caption>}
      <thead>
        <tr>
          {columns.map((c) =>
            typeof c === "string" ? (
              <th scope="col">{c}</th>
            ) : (
              <th scope="col" class="n">
                {c.n}
              </th>
            ),
          )}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  </div>
);
