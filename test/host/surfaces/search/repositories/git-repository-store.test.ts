import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { GitRepositoryStore } from '../../../../../host/surfaces/search/repositories/git-repository-store.js';
import { SecretSeal } from '../../../../../host/platform/secrets/secret-seal.js';
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

for (const dialect of SQLITE_AND_POSTGRES) {
  test(`${dialect.name}: with SECRETS_KEY a credential and a URL holding one are stored sealed; plain ones stored before are sealed at start`, async () => {
    const { db, cleanup } = await dialect.open();
    try {
      const plain = new GitRepositoryStore(db.db);
      assert.ok(await plain.insert({ name: 'before', url: 'https://ann:pat-1@git.example.com/a.git', revs: [], credential: 'ann:pat-2' }));
      assert.ok(await plain.insert({ name: 'public', url: 'https://git.example.com/public.git', revs: [] }));
      const seal = new SecretSeal('a-secrets-key-of-at-least-thirty-two-chars');
      const sealed = new GitRepositoryStore(db.db, seal);
      await sealed.resealStored();
      assert.ok(await sealed.insert({ name: 'after', url: 'https://bob:pat-3@git.example.com/b.git', revs: [], credential: 'bob:pat-4' }));
      const raw = await db.db.selectFrom('git_repositories').select(['name', 'url', 'credential']).orderBy('name').execute();
      const text = JSON.stringify(raw);
      for (const secret of ['pat-1', 'pat-2', 'pat-3', 'pat-4', 'ann', 'bob']) assert.not.ok(text.includes(secret), `${secret} is not in the table`);
      assert.is(raw.find((r) => r.name === 'public')!.url, 'https://git.example.com/public.git', 'a URL without credentials stays readable');
      const rows = await sealed.list();
      assert.equal(rows.map((r) => [r.name, r.url, r.credential]), [
        ['before', 'https://ann:pat-1@git.example.com/a.git', 'ann:pat-2'],
        ['public', 'https://git.example.com/public.git', undefined],
        ['after', 'https://bob:pat-3@git.example.com/b.git', 'bob:pat-4'],
      ]);
      await sealed.resealStored();
      assert.equal(await db.db.selectFrom('git_repositories').select(['name', 'url', 'credential']).orderBy('name').execute(), raw, 'values sealed under the key are left as they are');
      await plain.list().then(
        () => assert.unreachable('a store without the key cannot read sealed credentials'),
        (err: Error) => assert.match(err.message, /SECRETS_KEY is not set/),
      );
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
