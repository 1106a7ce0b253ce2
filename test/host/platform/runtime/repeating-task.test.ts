import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RepeatingTask } from '../../../../host/platform/runtime/repeating-task.js';

/** A promise with its resolve, to step a task from the test. */
function signal<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

// The task's timers are unref'd (background work never holds the process): this one keeps the test alive.
let keepAlive: NodeJS.Timeout;
test.before(() => {
  keepAlive = setInterval(() => {}, 1000);
});
test.after(() => clearInterval(keepAlive));

test('stop() during a run waits for it, and no run starts after', async () => {
  const started = signal();
  const release = signal();
  let runs = 0;
  const task = new RepeatingTask(
    () => 1,
    async () => {
      runs++;
      started.resolve();
      await release.promise;
    },
    (err) => assert.unreachable(String(err)),
  );
  task.start();
  await started.promise;
  let stopped = false;
  const stopping = task.stop().then(() => (stopped = true));
  await Promise.resolve();
  assert.is(stopped, false, 'stop() waits for the run under way');
  release.resolve();
  await stopping;
  // Several pauses of 1 ms pass: a loop that rescheduled itself would run again.
  await new Promise((r) => setTimeout(r, 30));
  assert.is(runs, 1);
});

test('a failed run is reported and the loop goes on, the pause read again each time', async () => {
  const errors: unknown[] = [];
  const third = signal();
  let runs = 0;
  let pauses = 0;
  const task = new RepeatingTask(
    () => {
      pauses++;
      return 1;
    },
    async () => {
      runs++;
      if (runs === 1) throw new Error('first run fails');
      if (runs === 3) third.resolve();
    },
    (err) => errors.push(err),
  );
  task.start();
  await third.promise;
  await task.stop();
  assert.is(errors.length, 1);
  assert.is((errors[0] as Error).message, 'first run fails');
  assert.ok(pauses >= 3, `pause read before every run (${pauses})`);
});

test.run();
