import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { GitRepositoryStore } from '../../../../../host/surfaces/search/repositories/git-repository-store.js';
import { json, removeDir, startGateway, tempDir } from '../../../../support/gateway.js';
import { gatewayDb } from '../../../../support/database.js';
import { SQLITE_AND_POSTGRES } from '../../../../support/pg.js';

for (const dialect of SQLITE_AND_POSTGRES) {
  test(`${dialect.name}: the git repository list: added once per name, listed in order, its fetch state saved, removed`, async () => {
    const { db, cleanup } = await dialect.open();
    try {
      const store = new GitRepositoryStore(db.db);
      assert.ok(await store.insert({ name: 'billing', url: 'https://git.example.com/billing.git', revs: ['dev', 'v*'], credential: 'user:token' }));
      assert.ok(await store.insert({ name: 'docs', url: '/srv/docs', revs: [], credential_env: 'DOCS_TOKEN' }));
      assert.not.ok(await store.insert({ name: 'billing', url: 'https://elsewhere.example.com/b.git', revs: [] }), 'a name is taken once');
      const state = { fetched_at: '2026-01-01T00:00:00.000Z', error: null, default_branch: 'main', revisions: [{ name: 'main', kind: 'branch' as const, commit: 'a'.repeat(40) }] };
      await store.saveState('billing', state);
      await store.saveState('gone', state);
      const rows = await store.list();
      assert.equal(rows.map((r) => r.name), ['billing', 'docs']);
      assert.equal(rows[0]!.revs, ['dev', 'v*']);
      assert.is(rows[0]!.url, 'https://git.example.com/billing.git', 'the first one added stays');
      assert.is(rows[0]!.credential, 'user:token');
      assert.equal(rows[0]!.state, state);
      assert.is(rows[1]!.credential_env, 'DOCS_TOKEN');
      assert.is(rows[1]!.credential, undefined);
      assert.equal(rows[1]!.state.revisions, []);
      assert.ok(await store.remove('billing'));
      assert.not.ok(await store.remove('billing'));
      assert.equal((await store.list()).map((r) => r.name), ['docs']);
    } finally {
      await db.close();
      await cleanup();
    }
  });
}

test('an existing DATA_DIR/git-repositories.json is imported into the table once and renamed aside; its credential stays secret', async () => {
  const dataDir = tempDir('git-import-');
  const legacy = path.join(dataDir, 'git-repositories.json');
  const commit = 'b'.repeat(40);
  writeFileSync(
    legacy,
    JSON.stringify([
      {
        name: 'legacy',
        url: 'https://git.example.com/legacy.git',
        revs: ['dev'],
        credential: 'user:legacy-s3cr3t',
        state: { fetched_at: '2026-01-01T00:00:00.000Z', error: null, default_branch: 'main', revisions: [{ name: 'main', kind: 'branch', commit, indexed_commit: commit }] },
      },
    ]),
    { mode: 0o600 },
  );
  const gw = await startGateway({ API_KEY: 'bootstrap-key-git-import-1', REPOS: JSON.stringify({ local: dataDir }), REPO: 'local' }, { dataDir, watch: false });
  try {
    const listed = await json(await fetch(`${gw.url}/api/repos`, { headers: { 'x-api-key': 'bootstrap-key-git-import-1' } }));
    assert.equal(listed.repositories.map((r: any) => [r.name, r.url, r.credential, r.default_branch]), [['legacy', 'https://git.example.com/legacy.git', '***', 'main']]);
    assert.equal(listed.repositories[0].revisions, [{ name: 'main', kind: 'branch', commit, indexed_commit: commit }], 'what was indexed stays indexed');
    assert.not.ok(JSON.stringify(listed).includes('s3cr3t'));
    const rows = await gatewayDb(gw.gateway).selectFrom('git_repositories').selectAll().execute();
    assert.equal(rows.map((r) => [r.name, r.credential]), [['legacy', 'user:legacy-s3cr3t']]);
    assert.not.ok(existsSync(legacy), 'renamed aside');
    const aside = readdirSync(dataDir).filter((n) => n.startsWith('git-repositories.json.imported-'));
    assert.is(aside.length, 1);
    assert.is(statSync(path.join(dataDir, aside[0]!)).mode & 0o777, 0o600, 'still readable by the gateway user only');
    assert.is(statSync(path.join(dataDir, 'switchboard.sqlite')).mode & 0o777, 0o600, 'as the database now holding the credential');
  } finally {
    await gw.gateway.close();
  }
  // Started again on the same DATA_DIR: nothing to import, the table keeps the one row.
  const again = await startGateway({ API_KEY: 'bootstrap-key-git-import-1', REPOS: JSON.stringify({ local: dataDir }), REPO: 'local' }, { dataDir, watch: false });
  try {
    const rows = await gatewayDb(again.gateway).selectFrom('git_repositories').select('name').execute();
    assert.equal(rows.map((r) => r.name), ['legacy']);
  } finally {
    await again.close();
    removeDir(dataDir);
  }
});

test.run();
