import type { ColumnDataType, ColumnDefinitionBuilder, CreateTableBuilder, Expression } from 'kysely';

type DataTypeExpression = ColumnDataType | Expression<unknown>;

type ColumnBuild = (column: ColumnDefinitionBuilder) => ColumnDefinitionBuilder;

/** One column of a new table: its name, its type, and what else it is (a key, not null, a default; `nullable`: nothing else). */
export type Column = [name: string, type: DataTypeExpression, build: ColumnBuild];

export const nullable: ColumnBuild = (c) => c;
export const notNull: ColumnBuild = (c) => c.notNull();
export const primaryKey: ColumnBuild = (c) => c.primaryKey();
/** Not null, 0 unless a value is given (counts, flags). */
export const zeroByDefault: ColumnBuild = (c) => c.notNull().defaultTo(0);

/** `table` with `columns` added in their order: what Kysely's addColumn does one column at a time, written as a list. */
export function withColumns<T extends string>(table: CreateTableBuilder<T, never>, columns: readonly Column[]): CreateTableBuilder<T, string> {
  let builder = table as CreateTableBuilder<T, string>;
  for (const [name, type, build] of columns) builder = builder.addColumn(name, type, build);
  return builder;
}
