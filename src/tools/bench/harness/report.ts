/**
 * How a bench prints its rows: one JSON object per line (`--json`), or an
 * aligned table with a header line. The one table printer of the project.
 *
 * @example
 * const out = rowPrinter<Row>(flags.json, [["name", -10, (r) => r.name], ["MB/s", 8, (r) => fixed(r.mbPerS, 1)]]);
 * out.header();
 * out.row({ name: "lz4", mbPerS: 812.4 });
 */

/** [title, width (negative = left-aligned, 0 = as wide as the text), cell]. */
export type Column<R> = readonly [title: string, width: number, cell: (row: R) => string];

export interface RowPrinter<R> {
  /** Prints the table header; nothing in JSON mode. */
  header(): void;
  row(row: R): void;
}

const pad = (text: string, width: number) => (width < 0 ? text.padEnd(-width) : text.padStart(width));

export function tableHeader<R>(columns: readonly Column<R>[]): string {
  return columns.map(([title, width]) => pad(title, width)).join("  ");
}

export function tableLine<R>(columns: readonly Column<R>[], row: R): string {
  return columns.map(([, width, cell]) => pad(cell(row), width)).join("  ");
}

export function printLine(line: string): void {
  process.stdout.write(`${line}\n`);
}

export function rowPrinter<R>(
  json: boolean,
  columns: readonly Column<R>[],
  print: (line: string) => void = printLine,
): RowPrinter<R> {
  return {
    header() {
      if (!json) print(tableHeader(columns));
    },
    row: (row) => print(json ? JSON.stringify(row) : tableLine(columns, row)),
  };
}

/**
 * For a bench whose rows are of several kinds: in JSON mode every row is a
 * line; otherwise the rows `inTable` picks go into the aligned table and the
 * others print as `asText` words them.
 */
export function mixedRowPrinter<R, T extends R>(
  json: boolean,
  columns: readonly Column<T>[],
  inTable: (row: R) => row is T,
  asText: (row: Exclude<R, T>) => string,
  print: (line: string) => void = printLine,
): RowPrinter<R> {
  const table = rowPrinter(false, columns, print);
  return {
    header() {
      if (!json) table.header();
    },
    row(row) {
      if (json) print(JSON.stringify(row));
      else if (inTable(row)) table.row(row);
      else print(asText(row as Exclude<R, T>));
    },
  };
}

/** A number for a table cell, "-" for null. */
export const fixed = (x: number | null | undefined, digits: number) =>
  x === null || x === undefined ? "-" : x.toFixed(digits);

/** A fraction as a percentage for a table cell. */
export const percent = (x: number | null) => (x === null ? "-" : `${(x * 100).toFixed(3)}%`);
