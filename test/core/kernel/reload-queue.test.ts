import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ReloadQueue } from '../../../core/kernel/reload-queue.js';

test('requests for a waiting key coalesce into one run; a key asked for while it runs runs once more', async () => {
  const runs: string[] = [];
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const queue = new ReloadQueue(async (key) => {
    runs.push(key);
    if (runs.length === 1) await gate;
  });
  const first = queue.request('scan');
  const waiting = [queue.request('plugin:a'), queue.request('plugin:a'), queue.request('plugin:a')];
  assert.is(waiting[0], waiting[1], 'the same promise for a key that waits');
  assert.is(waiting[1], waiting[2]);
  const again = queue.request('scan'); // 'scan' is running: what it read may be stale
  assert.is.not(again, first);
  release();
  await Promise.all([first, ...waiting, again]);
  await queue.idle();
  assert.equal(runs, ['scan', 'plugin:a', 'scan']);
});

test('a failing run rejects its own requests and the queue goes on', async () => {
  const runs: string[] = [];
  const queue = new ReloadQueue(async (key) => {
    runs.push(key);
    if (key === 'bad') throw new Error('bad run');
  });
  const bad = queue.request('bad');
  const good = queue.request('good');
  const err = await bad.then(() => undefined, (e: Error) => e);
  assert.match(err?.message ?? '', /bad run/);
  await good;
  assert.equal(runs, ['bad', 'good']);
});

test.run();
