import { suite } from 'uvu';
import { conformance } from 'switchboard/sdk/testing';
import retrievalPostgres from '../../../plugins/retrieval-postgres/index.js';
import retrievalSqlite from '../../../plugins/retrieval-sqlite/index.js';
import { isolatedBuiltin } from '../../support/isolated-builtin.js';
import { removeDir, tempDir } from '../../support/gateway.js';
import { freshPostgresDatabase } from '../../support/pg.js';

// The kit's retrieval suite against the built-in retrieval plugins in a child process, as
// PLUGIN_ISOLATION=<id>=process runs them: write sessions (objects whose methods are calls
// back), metadata and enrichment cross the boundary.

// A child process per case on a loaded machine.
const timeouts = { startMs: 30_000 };
const dataDir = tempDir('switchboard-isolated-retrieval-');
const database = await freshPostgresDatabase();

{
  const test = suite('retrieval-sqlite, isolated: retrieval conformance');
  for (const c of conformance.retrieval({ plugin: retrievalSqlite, pluginId: 'retrieval-sqlite', dataDir, enrichment: true, metadata: true, isolation: isolatedBuiltin('retrieval-sqlite'), timeouts })) test(c.name, c.run);
  test.run();
}

{
  // On the gateway's DATABASE_URL, as test/plugins/retrieval-postgres runs it in-process.
  const test = suite('retrieval-postgres, isolated: retrieval conformance');
  test.after(async () => {
    await database.drop();
    removeDir(dataDir);
  });
  for (const c of conformance.retrieval({ plugin: retrievalPostgres, pluginId: 'retrieval-postgres', dataDir, env: { DATABASE_URL: database.url }, enrichment: true, metadata: true, isolation: isolatedBuiltin('retrieval-postgres'), timeouts })) test(c.name, c.run);
  test.run();
}
