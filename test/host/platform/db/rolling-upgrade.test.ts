import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { sql } from '../../../../host/platform/db/kysely-runtime.js';
import { freshPostgresDatabase } from '../../../support/pg.js';
import { removeDir, tempDir } from '../../../support/gateway.js';
import { openGatewayDatabase } from '../../../support/database.js';

/**
 * A rolling upgrade: a newer version migrated the shared database while instances of this
 * version still run; one of those restarting must start on that schema, not refuse it.
 */
for (const dialect of ['postgres', 'sqlite'] as const) {
  test(`${dialect}: a database migrated by a newer version opens without migrating, naming the migrations it does not know`, async () => {
    const dir = tempDir();
    const pg = dialect === 'postgres' ? await freshPostgresDatabase() : undefined;
    const url = pg?.url ?? `sqlite:${dir}/db.sqlite`;
    try {
      const first = await openGatewayDatabase({ url, dataDir: dir });
      assert.equal(first.schemaAhead, []);
      // What a newer version leaves: a migration row this version has no code for, and its table.
      await sql`insert into kysely_migration (name, timestamp) values ('9999_from_a_newer_version', '2099-01-01T00:00:00.000Z')`.execute(first.db);
      await sql`create table newer_things (id text primary key)`.execute(first.db);
      await first.close();
      const again = await openGatewayDatabase({ url, dataDir: dir });
      assert.equal(again.schemaAhead, ['9999_from_a_newer_version']);
      // and it works on that schema
      await again.db.insertInto('host_kv').values({ key: 'k', value: 'v' }).execute();
      assert.is((await again.db.selectFrom('host_kv').selectAll().where('key', '=', 'k').executeTakeFirst())?.value, 'v');
      await again.close();
    } finally {
      await pg?.drop();
      removeDir(dir);
    }
  });
}

test.run();
