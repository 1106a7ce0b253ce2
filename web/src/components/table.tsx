import type { ComponentChildren } from 'preact';

/** A column: its header, what a row shows in it, and the cell's class. */
export interface Column<Row> {
  header: string;
  cell: (row: Row) => ComponentChildren;
  class?: string;
  /** The cell that names its row (`<th scope="row">`), read first by a screen reader. */
  rowHeader?: boolean;
}

/** The buttons of a row, in a last column, grouped and named for the row. */
export interface RowActions<Row> {
  header?: string;
  /** The group's accessible name, e.g. "Actions for postgres". */
  label: (row: Row) => string;
  cell: (row: Row) => ComponentChildren;
}

export interface TableProps<Row> {
  rows: readonly Row[];
  columns: readonly Column<Row>[];
  rowKey: (row: Row) => string | number;
  /** Shown instead of the table when there is no row; without it the headers stand alone. */
  empty?: ComponentChildren;
  actions?: RowActions<Row>;
  /** For screen readers only. */
  caption?: string;
  testId?: string;
  /** Attributes of a row's `<tr>` (a test's handle, `data-plugin`). */
  rowAttributes?: (row: Row) => Record<string, string>;
}

/** Every table of the console: columns as data, header cells scoped, an empty state, optional row actions. */
export function Table<Row>({ rows, columns, rowKey, empty, actions, caption, testId, rowAttributes }: TableProps<Row>) {
  if (rows.length === 0 && empty !== undefined) return <p class="note">{empty}</p>;
  return (
    <table data-testid={testId}>
      {caption && <caption class="sr-only">{caption}</caption>}
      <thead>
        <tr>
          {columns.map((c) => (
            <th scope="col" key={c.header}>
              {c.header}
            </th>
          ))}
          {actions && <th scope="col">{actions.header ?? 'Actions'}</th>}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={rowKey(row)} {...rowAttributes?.(row)}>
            {columns.map((c) =>
              c.rowHeader ? (
                <th scope="row" class={c.class} key={c.header}>
                  {c.cell(row)}
                </th>
              ) : (
                <td class={c.class} key={c.header}>
                  {c.cell(row)}
                </td>
              ),
            )}
            {actions && (
              <td>
                <div class="actions" role="group" aria-label={actions.label(row)}>
                  {actions.cell(row)}
                </div>
              </td>
            )}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
