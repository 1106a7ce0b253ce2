import type { ColumnDataType, ColumnDefinitionBuilder, CreateTableBuilder, Expression } from 'kysely';

type DataTypeExpression = ColumnDataType | Expression<unknown>;

type ColumnBuild = (column: ColumnDefinitionBuilder) => ColumnDefinitionBuilder;

/** One column of a new table: its name, its type, and what else it is (a key, not null, a default; `nullable`: nothing else). */
export type Column = [name: string, type: DataTypeExpression, build: ColumnBuild];

const TYPES = /^(text|integer|bigint|varchar\(\d+\))$/;
const MODIFIERS: Record<string, ColumnBuild> = {
  '': (c) => c,
  'not null': (c) => c.notNull(),
  'primary key': (c) => c.primaryKey(),
  'not null default 0': (c) => c.notNull().defaultTo(0),
};

/**
 * Columns written as SQL reads them, `name type [primary key | not null | not null default 0]`,
 * comma-separated (line breaks are free), for the types both databases spell alike (text,
 * integer, bigint, varchar(n)). A column either dialect spells differently is written as a Column.
 */
export function columns(list: string): Column[] {
  return list.split(',').map((part) => part.trim().replace(/\s+/g, ' ')).filter(Boolean).map((definition) => {
    const [name, type, ...rest] = definition.split(' ');
    const build = MODIFIERS[rest.join(' ').toLowerCase()];
    if (!name || !/^[a-z_][a-z0-9_]*$/.test(name) || !type || !TYPES.test(type) || !build) {
      throw new Error(`column "${definition}": expected "name type [primary key | not null | not null default 0]"`);
    }
    return [name, type as ColumnDataType, build];
  });
}

/** `table` with `columns` added in their order: what Kysely's addColumn does one column at a time, written as a list. */
export function withColumns<T extends string>(table: CreateTableBuilder<T, never>, columns: readonly Column[]): CreateTableBuilder<T, string> {
  let builder = table as CreateTableBuilder<T, string>;
  for (const [name, type, build] of columns) builder = builder.addColumn(name, type, build);
  return builder;
}
