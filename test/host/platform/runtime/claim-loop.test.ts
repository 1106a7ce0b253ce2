import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Writable } from 'node:stream';
import pino from 'pino';
import { ClaimLoop, type ClaimableOutbox } from '../../../../host/platform/runtime/claim-loop.js';

/** An outbox in memory: rows due in order, each claimed once, every claim recorded. */
function memoryOutbox(rows: number[]) {
  const due = [...rows];
  const claims: Array<{ owner: string; got: number[] }> = [];
  const outbox: ClaimableOutbox<number> = {
    async claim(owner, limit) {
      const got = due.splice(0, limit);
      claims.push({ owner, got });
      return got;
    },
  };
  return { outbox, claims, due };
}

/** The loops' error lines, each also handed to whoever waits for it. */
const errors: string[] = [];
const waiting = new Map<string, () => void>();
const logger = pino({ level: 'error' }, new Writable({ write(chunk, _enc, cb) {
  const msg = JSON.parse(String(chunk)).msg as string;
  errors.push(msg);
  waiting.get(msg)?.();
  cb();
} }));
const logged = (msg: string) => (errors.includes(msg) ? Promise.resolve() : new Promise<void>((resolve) => waiting.set(msg, resolve)));

// The loop's timers never keep a process alive (background work): this one does while the tests wait.
const keepAlive = setInterval(() => undefined, 1000);
test.after(() => clearInterval(keepAlive));

test('claims in batches until none is due, under one owner, at once when started', async () => {
  const { outbox, claims } = memoryOutbox([1, 2, 3, 4, 5]);
  const handled: number[][] = [];
  let drained!: () => void;
  const done = new Promise<void>((r) => (drained = r));
  const loop = new ClaimLoop({ name: 'test', outbox, batch: 2, leaseMs: 1000, cadence: { pauseMs: () => 60_000 }, logger, handle: async (rows) => {
    handled.push(rows);
    if (rows.includes(5)) drained();
  } });
  loop.start();
  await done;
  await loop.stop();
  assert.equal(handled, [[1, 2], [3, 4], [5]]);
  assert.ok(claims.every((c) => c.owner === loop.owner) && loop.owner.startsWith('test-'));
});

test('a stop lets the batch in hand finish and claims nothing after it; a failing batch is logged and retried on the next run', async () => {
  const { outbox, claims, due } = memoryOutbox([1, 2, 3, 4]);
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  let entered!: () => void;
  const inBatch = new Promise<void>((r) => (entered = r));
  const handled: number[] = [];
  const loop = new ClaimLoop({ name: 'held', outbox, batch: 2, leaseMs: 1000, cadence: { pauseMs: () => 60_000 }, logger, handle: async (rows) => {
    entered();
    await held;
    handled.push(...rows);
  } });
  loop.start();
  await inBatch;
  const stopped = loop.stop();
  release();
  await stopped;
  assert.equal(handled, [1, 2], 'the batch in hand finished');
  assert.is(claims.length, 1, 'no claim after the stop');
  assert.equal(due, [3, 4]);

  // A batch that throws: logged with the loop's name, and the next wake claims again.
  let fail = true;
  let second!: () => void;
  const again = new Promise<void>((r) => (second = r));
  const failing = new ClaimLoop({ name: 'flaky', outbox, batch: 1, leaseMs: 1000, cadence: { pauseMs: () => 60_000 }, logger, handle: async (rows) => {
    if (fail) {
      fail = false;
      throw new Error('boom');
    }
    if (rows[0] === 4) second();
  } });
  const failed = logged('flaky delivery failed; next run retries');
  failing.start();
  await failed;
  failing.wake();
  await again;
  await failing.stop();
});

test.run();
