import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Kysely, SqliteDialect } from 'kysely';
import Database from 'better-sqlite3';
import { columns, withColumns } from '../../../../host/platform/db/table-columns.js';

test('columns() reads SQL column definitions into the builder: keys, not null, defaults, line breaks', async () => {
  const db = new Kysely<any>({ dialect: new SqliteDialect({ database: new Database(':memory:') }) });
  try {
    const ddl = withColumns(db.schema.createTable('t'), columns(`
      id text primary key, name text not null,
      count integer not null default 0, note text, size bigint, code varchar(16)
    `)).compile().sql;
    assert.is(ddl, 'create table "t" ("id" text primary key, "name" text not null, "count" integer default 0 not null, "note" text, "size" bigint, "code" varchar(16))');
  } finally {
    await db.destroy();
  }
});

test('columns() refuses what it cannot read, naming the column', () => {
  assert.throws(() => columns('id text primary key, name txt not null'), /column "name txt not null"/);
  assert.throws(() => columns('id text unique'), /column "id text unique"/);
  assert.throws(() => columns('Bad-Name text'), /Bad-Name/);
  assert.throws(() => columns('lonely'), /lonely/);
});

test.run();
