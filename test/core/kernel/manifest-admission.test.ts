import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { admitManifests } from '../../../core/kernel/manifest-admission.js';
import { findManifests, type ManifestFile } from '../../../core/kernel/manifest-source.js';
import { ManifestWatcher } from '../../../core/kernel/manifest-watcher.js';
import { tempDir, until } from '../../support/gateway.js';

// What a scan goes by while the kernel's watcher still waits for files to settle, with the
// real watcher as the gate.

const byPath = (files: readonly ManifestFile[]) => new Map(files.map((f) => [f.path, f]));
const names = (files: readonly ManifestFile[]) => files.map((f) => path.basename(f.path));

test('a removed or half-written manifest keeps what the last scan read until the watcher saw it settle', async () => {
  const dir = tempDir('switchboard-admission-');
  // Two files with one id: the earlier name wins, so the order of what a scan reads matters.
  writeFileSync(path.join(dir, 'a.json'), JSON.stringify({ id: 'dup', version: '1.0.0' }));
  writeFileSync(path.join(dir, 'b.json'), JSON.stringify({ id: 'dup', version: '2.0.0' }));
  let changes = 0;
  let settled!: () => void;
  let next = new Promise<void>((r) => (settled = r));
  const watcher = new ManifestWatcher([dir], [], () => {
    changes++;
    settled();
    next = new Promise<void>((r) => (settled = r));
  });
  try {
    await watcher.ready();
    const first = findManifests([dir]);
    assert.equal(names(first), ['a.json', 'b.json']);

    const done = next;
    rmSync(path.join(dir, 'a.json'));
    writeFileSync(path.join(dir, 'c.json'), '{ "id": "half", ');
    const during = admitManifests(findManifests([dir]), byPath(first), watcher, [dir]);
    assert.equal(names(during), ['a.json', 'b.json'], 'a.json kept in its place, c.json not read yet');
    assert.is(during[0], first[0], 'the content the last scan read');

    await done;
    // Removal and malformed content both wait for stillness: the scan that counts is the last one asked for.
    await until(() => !watcher.settling(path.join(dir, 'a.json')) && !watcher.settling(path.join(dir, 'c.json')));
    const after = admitManifests(findManifests([dir]), byPath(during), watcher, [dir]);
    assert.equal(names(after), ['b.json', 'c.json'], 'settled: a.json gone, c.json read as it is');
    assert.ok(changes >= 1);
  } finally {
    await watcher.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a changed manifest that parses is taken as it is before the watcher has heard of it', async () => {
  const dir = tempDir('switchboard-admission-');
  writeFileSync(path.join(dir, 'a.json'), JSON.stringify({ id: 'a', version: '1.0.0' }));
  const watcher = new ManifestWatcher([dir], [], () => {});
  try {
    await watcher.ready();
    const first = findManifests([dir]);
    writeFileSync(path.join(dir, 'a.json'), JSON.stringify({ id: 'a', version: '1.1.0' }));
    // Not yet reported by the watcher: a complete JSON object cannot be a part of a file.
    const now = admitManifests(findManifests([dir]), byPath(first), watcher, [dir]);
    assert.is(JSON.parse(now[0]!.text).version, '1.1.0');
  } finally {
    await watcher.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
