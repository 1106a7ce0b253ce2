import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { assertRemoteAllowed, checkRemoteUrl, GitMirror, revPattern } from '../../../../../host/surfaces/search/repositories/git-remote.js';
import { commitFiles, git, startGitDaemon } from '../../../../support/git-daemon.js';
import { removeDir, tempDir } from '../../../../support/gateway.js';

test('a mirror of a git daemon remote: two branches and a tag exported, a pushed commit fetched, a deleted branch pruned', async () => {
  const dir = tempDir();
  const served = path.join(dir, 'served');
  const work = path.join(dir, 'work');
  mkdirSync(served);
  mkdirSync(work);
  git(served, 'init', '--quiet', '--bare', '--initial-branch=main', 'billing.git');
  git(work, 'init', '--quiet', '--initial-branch=main');
  commitFiles(work, { 'src/pay.ts': 'export const version = "main-1";\n' }, 'first');
  git(work, 'tag', '-a', 'v1.0', '-m', 'release');
  git(work, 'checkout', '--quiet', '-b', 'dev');
  commitFiles(work, { 'src/pay.ts': 'export const version = "dev-1";\n' }, 'dev work');
  git(work, 'checkout', '--quiet', '-b', 'scratch');
  git(work, 'push', '--quiet', path.join(served, 'billing.git'), 'main', 'dev', 'scratch', 'v1.0');
  const daemon = await startGitDaemon(served, 'billing.git');
  try {
    const mirror = new GitMirror({ dir: path.join(dir, 'mirrors', 'billing.git'), source: { url: daemon.url('billing.git'), revs: ['dev', 'v*'] }, timeoutMs: 20000 });
    await mirror.fetch();
    assert.is(await mirror.defaultBranch(), 'main');
    const revs = await mirror.revisions();
    assert.equal(revs.map((r) => `${r.kind}:${r.name}`).sort(), ['branch:dev', 'branch:main', 'tag:v1.0'], 'scratch matches no pattern');
    const tag = revs.find((r) => r.name === 'v1.0')!;
    assert.is(tag.commit, git(work, 'rev-parse', 'main').trim(), 'an annotated tag is peeled to its commit');
    for (const rev of revs) {
      const out = path.join(dir, 'trees', rev.name);
      await mirror.export(rev.commit, out);
      assert.is(readFileSync(path.join(out, 'src/pay.ts'), 'utf8'), rev.name === 'dev' ? 'export const version = "dev-1";\n' : 'export const version = "main-1";\n');
      assert.not.ok(existsSync(path.join(out, '.git')));
    }
    git(work, 'checkout', '--quiet', 'main');
    commitFiles(work, { 'src/pay.ts': 'export const version = "main-2";\n' }, 'second');
    git(work, 'push', '--quiet', daemon.url('billing.git'), 'main', ':scratch');
    await mirror.fetch();
    const main = (await mirror.revisions()).find((r) => r.name === 'main')!;
    assert.is(main.commit, git(work, 'rev-parse', 'main').trim(), 'the fetch moved main');
    await mirror.export(main.commit, path.join(dir, 'trees', 'main'));
    assert.is(readFileSync(path.join(dir, 'trees', 'main', 'src/pay.ts'), 'utf8'), 'export const version = "main-2";\n');
    assert.not.ok(git(mirror.dir, 'for-each-ref', 'refs/heads').includes('scratch'), 'a deleted branch is pruned');
  } finally {
    await daemon.stop();
    removeDir(dir);
  }
});

test('remote URLs: options and command transports refused, loopback refused unless allowed', async () => {
  for (const bad of ['--upload-pack=touch /tmp/x', 'ext::sh -c touch% /tmp/x', 'relative/path', 'ftp://example.com/r.git']) {
    assert.throws(() => checkRemoteUrl(bad), /is not a git remote/, bad);
  }
  for (const good of ['https://github.com/a/b.git', 'ssh://git@example.com/a.git', 'git@example.com:a/b.git', 'file:///srv/r.git', '/srv/r.git', 'git://127.0.0.1:9418/r.git']) checkRemoteUrl(good);
  await assertRemoteAllowed('git://127.0.0.1:9418/r.git', []).then(
    () => assert.unreachable('loopback must be refused'),
    (err: Error) => assert.match(err.message, /OUTBOUND_ALLOW_HOSTS/),
  );
  await assertRemoteAllowed('git://127.0.0.1:9418/r.git', ['127.0.0.1']);
  await assertRemoteAllowed('/srv/r.git', []);
});

test('revision patterns: names, * within a segment, ** across', () => {
  assert.ok(revPattern('main').test('main'));
  assert.not.ok(revPattern('main').test('mainline'));
  assert.ok(revPattern('release/*').test('release/1.2'));
  assert.not.ok(revPattern('release/*').test('release/1/2'));
  assert.ok(revPattern('release/**').test('release/1/2'));
  assert.ok(revPattern('v1.*').test('v1.4'));
  assert.not.ok(revPattern('v1.*').test('v104'));
});

test.run();
