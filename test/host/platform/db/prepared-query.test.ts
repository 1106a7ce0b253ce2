import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Kysely } from 'kysely';
import { PreparedQuery } from '../../../../host/platform/db/prepared-query.js';
import { freshPostgresDatabase } from '../../../support/pg.js';
import { removeDir, tempDir } from '../../../support/gateway.js';
import { openGatewayDatabase, type GatewayTables } from '../../../support/database.js';

const valueOf = new PreparedQuery(
  (db: Kysely<GatewayTables>, key: string) => db.selectFrom('host_kv').select('value').where('key', '=', key),
  (key) => [key],
);
const put = new PreparedQuery(
  (db: Kysely<GatewayTables>, row: { key: string; value: string }) => db.insertInto('host_kv').values(row),
  (row) => [row.key, row.value],
);

for (const dialect of ['postgres', 'sqlite'] as const) {
  test(`${dialect}: a prepared query compiled once binds each run's own values, in a transaction too`, async () => {
    const dir = tempDir();
    const pg = dialect === 'postgres' ? await freshPostgresDatabase() : undefined;
    const opened = await openGatewayDatabase({ url: pg?.url ?? `sqlite:${dir}/db.sqlite`, dataDir: dir });
    try {
      await put.execute(opened.db, { key: 'a', value: 'one' });
      await put.execute(opened.db, { key: 'b', value: 'two' });
      await opened.db.transaction().execute((trx) => put.execute(trx, { key: 'c', value: 'three' }));
      assert.equal((await valueOf.execute(opened.db, 'a')).rows, [{ value: 'one' }]);
      assert.equal((await valueOf.execute(opened.db, 'b')).rows, [{ value: 'two' }]);
      assert.equal((await opened.db.transaction().execute((trx) => valueOf.execute(trx, 'c'))).rows, [{ value: 'three' }]);
      assert.equal((await valueOf.execute(opened.db, 'none')).rows, []);
    } finally {
      await opened.close();
      await pg?.drop();
      removeDir(dir);
    }
  });
}

test('values listed in another order than the compiled SQL binds them are refused at the first run', async () => {
  const dir = tempDir();
  const opened = await openGatewayDatabase({ dataDir: dir });
  try {
    const swapped = new PreparedQuery(
      (db: Kysely<GatewayTables>, row: { key: string; value: string }) => db.insertInto('host_kv').values(row),
      (row) => [row.value, row.key],
    );
    const err = await swapped.execute(opened.db, { key: 'k', value: 'v' }).catch((e: unknown) => e);
    assert.match(String(err), /another order/);
    assert.equal(await opened.db.selectFrom('host_kv').selectAll().where('key', '=', 'k').execute(), []);
  } finally {
    await opened.close();
    removeDir(dir);
  }
});

test.run();
