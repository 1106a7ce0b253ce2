import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { closeSync, openSync, readFileSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { isCompleteJson, WriteSettler } from '../../../core/kernel/write-settler.js';
import { tempDir } from '../../support/gateway.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const manifestText = JSON.stringify({ manifestVersion: 1, id: 'slow-one', name: 'Slow', version: '2.0.0', description: 'written in chunks' }, null, 2);

/** A settler that notices every change of `file` as a watcher would, and records what it read. */
function watched(file: string) {
  const seen: Array<string | undefined> = [];
  let settledOnce!: () => void;
  let next = new Promise<void>((r) => (settledOnce = r));
  const settler = new WriteSettler({
    isComplete: isCompleteJson,
    onSettled: (f) => {
      let text: string | undefined;
      try {
        text = readFileSync(f, 'utf8');
      } catch {
        text = undefined;
      }
      seen.push(text);
      settledOnce();
      next = new Promise<void>((r) => (settledOnce = r));
    },
  });
  return { settler, seen, settled: () => next };
}

/** Writes `text` straight into `file` (no rename) in chunks, pausing 30-80 ms between them. */
async function writeSlowly(file: string, text: string, settler: WriteSettler, chunks = 6): Promise<void> {
  const fd = openSync(file, 'w');
  settler.notice(file);
  const size = Math.ceil(text.length / chunks);
  try {
    for (let i = 0; i < text.length; i += size) {
      writeSync(fd, text.slice(i, i + size));
      settler.notice(file);
      if (i + size < text.length) await sleep(30 + ((i / size) % 3) * 25);
    }
  } finally {
    closeSync(fd);
  }
  settler.notice(file);
}

test('JSON objects and arrays are complete; a prefix of one, a bare number or an empty file is not', () => {
  assert.ok(isCompleteJson(manifestText));
  assert.ok(isCompleteJson('[1, 2]\n'));
  for (let cut = 0; cut < manifestText.length; cut++) assert.not.ok(isCompleteJson(manifestText.slice(0, cut)), `prefix of ${cut} chars`);
  assert.not.ok(isCompleteJson('12'), 'a number can be the prefix of a longer one');
  assert.not.ok(isCompleteJson(''));
});

test('a file renamed into place settles with its whole content', async () => {
  const dir = tempDir('switchboard-settler-');
  const file = path.join(dir, 'manifest.json');
  const { settler, seen, settled } = watched(file);
  try {
    const done = settled();
    writeFileSync(`${file}.partial`, manifestText);
    renameSync(`${file}.partial`, file);
    settler.notice(file);
    assert.ok(settler.isSettling(file));
    await done;
    assert.equal(seen, [manifestText]);
    assert.not.ok(settler.isSettling(file));
    assert.ok(settler.heldStill(file), 'unchanged since it settled');
  } finally {
    settler.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a complete file renamed over a known one settles at its first look; rewritten in place, or never seen before, it holds still first', async () => {
  const dir = tempDir('switchboard-settler-');
  const renamed = path.join(dir, 'renamed.json');
  const inPlace = path.join(dir, 'in-place.json');
  const unknown = path.join(dir, 'unknown.json');
  for (const file of [renamed, inPlace, unknown]) writeFileSync(file, JSON.stringify({ id: 'before' }));
  const settledFiles: string[] = [];
  let firstSettled!: () => void;
  const first = new Promise<void>((r) => (firstSettled = r));
  // A minute of holding still for complete content: only a file settled at once settles within the test.
  const settler = new WriteSettler({ isComplete: isCompleteJson, completeMs: 60_000, onSettled: (f) => (settledFiles.push(f), firstSettled()) });
  try {
    settler.remember([renamed, inPlace]);
    for (const file of [renamed, unknown]) {
      writeFileSync(`${file}.partial`, manifestText);
      renameSync(`${file}.partial`, file);
    }
    writeFileSync(inPlace, manifestText);
    for (const file of [inPlace, unknown, renamed]) settler.notice(file);
    // Bounded, so a settler that makes the renamed file wait too fails here instead of hanging.
    await Promise.race([first, sleep(5_000)]);
    assert.equal(settledFiles, [renamed]);
    assert.ok(settler.isSettling(inPlace), 'the same file rewritten in place holds still first');
    assert.ok(settler.isSettling(unknown), 'a file whose earlier inode is not known holds still first');
  } finally {
    settler.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a late second event of a rename that settled settles again at once; a rewrite in place after it still holds still', async () => {
  const dir = tempDir('switchboard-settler-');
  const file = path.join(dir, 'manifest.json');
  writeFileSync(file, JSON.stringify({ id: 'before' }));
  let settledCount = 0;
  let wake: () => void = () => {};
  const settledAgain = () => new Promise<void>((r) => (wake = r));
  const settler = new WriteSettler({ isComplete: isCompleteJson, completeMs: 60_000, onSettled: () => (settledCount++, wake()) });
  try {
    settler.remember([file]);
    writeFileSync(`${file}.partial`, manifestText);
    renameSync(`${file}.partial`, file);
    let next = settledAgain();
    settler.notice(file);
    await Promise.race([next, sleep(5_000)]);
    assert.is(settledCount, 1);
    // The same rename reported again (chokidar and fs.watch both do): settled at once, not held a
    // minute, and a scan asking right after the event (before the first look's timer) is not told
    // to skip the file.
    settler.notice(file);
    assert.not.ok(settler.isSettling(file), 'looked at when asked');
    assert.is(settledCount, 2, 'the late event settles at once');
    // Now written in place: that is a change, and it holds still first.
    writeFileSync(file, JSON.stringify({ id: 'rewritten in place', padding: 'x'.repeat(40) }));
    settler.notice(file);
    await sleep(50);
    assert.ok(settler.isSettling(file), 'a rewrite in place after a rename holds still');
    assert.is(settledCount, 2);
  } finally {
    settler.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a file written slowly in place settles only once it is complete', async () => {
  const dir = tempDir('switchboard-settler-');
  const file = path.join(dir, 'manifest.json');
  writeFileSync(file, JSON.stringify({ id: 'slow-one', version: '1.0.0' }));
  const { settler, seen, settled } = watched(file);
  try {
    const done = settled();
    await writeSlowly(file, manifestText, settler);
    await done;
    assert.ok(seen.length >= 1);
    for (const text of seen) assert.is(text, manifestText, 'never settled on a part of the file');
  } finally {
    settler.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a file left malformed still settles once it stops changing, and so does a removal', async () => {
  const dir = tempDir('switchboard-settler-');
  const file = path.join(dir, 'manifest.json');
  const { settler, seen, settled } = watched(file);
  try {
    let done = settled();
    await writeSlowly(file, '{ "id": "slow-one", "version": ', settler, 3);
    await done;
    assert.equal(seen, ['{ "id": "slow-one", "version": ']);

    done = settled();
    rmSync(file);
    settler.notice(file);
    await done;
    assert.equal(seen, ['{ "id": "slow-one", "version": ', undefined]);
    assert.ok(settler.heldStill(file), 'gone, as when it settled');
  } finally {
    settler.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a change nobody reported is not taken as settled: heldStill notices it', async () => {
  const dir = tempDir('switchboard-settler-');
  const file = path.join(dir, 'manifest.json');
  const { settler, seen, settled } = watched(file);
  try {
    let done = settled();
    writeFileSync(file, '{ "id": ');
    settler.notice(file);
    await done;
    done = settled();
    writeFileSync(file, '{ "id": "other", ');
    assert.not.ok(settler.heldStill(file), 'the content changed since it settled');
    assert.ok(settler.isSettling(file), 'and is watched until it settles again');
    await done;
    assert.equal(seen, ['{ "id": ', '{ "id": "other", ']);
    assert.ok(settler.heldStill(file));
  } finally {
    settler.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
