import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MAX_TIMER_MS, RecurringTask, realTimers, type ScheduleTimers } from '../../../../host/platform/runtime/recurring-task.js';

const MINUTE = 60_000;

/** Every promise callback queued so far has run (setImmediate comes after the microtasks). */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A clock that moves only when told; timeouts fire in order as time passes them, each run's promises settling between. */
function steppedClock(start = 1_000_000) {
  let now = start;
  let seq = 0;
  const pending = new Map<number, { at: number; fn: () => void }>();
  const requested: number[] = [];
  const timers: ScheduleTimers = {
    now: () => now,
    setTimeout: (fn, ms) => {
      requested.push(ms);
      pending.set(++seq, { at: now + ms, fn });
      return seq;
    },
    clearTimeout: (handle) => void pending.delete(handle as number),
  };
  const advance = async (ms: number) => {
    const until = now + ms;
    for (let fired = 0; ; fired++) {
      // a loop that re-arms at once forever would never let time pass
      if (fired > 1000) throw new Error('runaway: more than 1000 timers fired in one step');
      await settle();
      const next = [...pending.entries()].sort((a, b) => a[1].at - b[1].at)[0];
      if (!next || next[1].at > until) break;
      pending.delete(next[0]);
      now = Math.max(now, next[1].at);
      next[1].fn();
    }
    now = until;
    await settle();
  };
  return { timers, advance, pending, requested, now: () => now };
}

/** A promise with its resolve, to step a task from the test. */
function signal() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

const noError = (err: unknown) => assert.unreachable(String(err));

/**
 * A task whose runs last until the test releases them, recording when each began (ms after the
 * clock's start); two runs at once fail the test.
 */
function heldTask(clock: ReturnType<typeof steppedClock>) {
  const start = clock.now();
  const runs: number[] = [];
  let active = 0;
  let gate = signal();
  return {
    runs,
    task: async () => {
      assert.is(active++, 0, 'runs never overlap');
      runs.push(clock.now() - start);
      await gate.promise;
      active--;
    },
    /** Ends the run under way; the next run is held again. */
    release() {
      const held = gate;
      gate = signal();
      held.resolve();
    },
    /** Ends the run under way and every later run at once. */
    releaseAll() {
      gate.resolve();
    },
  };
}

test('a grid: 90 minutes means every 90 minutes from start, not a cron rounding', async () => {
  const clock = steppedClock();
  const start = clock.now();
  const runs: number[] = [];
  const loop = new RecurringTask({ cadence: { everyMs: () => 90 * MINUTE }, task: async () => void runs.push(clock.now() - start), onError: noError, timers: clock.timers });
  loop.start();
  await clock.advance(89 * MINUTE);
  assert.equal(runs, []);
  await clock.advance(MINUTE);
  assert.equal(runs, [90 * MINUTE]);
  await clock.advance(4 * 90 * MINUTE);
  assert.equal(runs, [90, 180, 270, 360, 450].map((m) => m * MINUTE));
  await loop.stop();
});

test('a grid: a slow run does not drift it, a due time passing during a run is skipped, not queued or overlapped', async () => {
  const clock = steppedClock();
  const held = heldTask(clock);
  const loop = new RecurringTask({ cadence: { everyMs: () => 10 * MINUTE }, task: held.task, onError: noError, timers: clock.timers });
  loop.start();
  await clock.advance(10 * MINUTE);
  assert.equal(held.runs, [10 * MINUTE]);
  // the run lasts 15 minutes: the due time at 20 passes during it
  await clock.advance(15 * MINUTE);
  assert.equal(held.runs, [10 * MINUTE]);
  held.releaseAll();
  await clock.advance(0);
  assert.is(loop.nextDueAt(), clock.now() + 5 * MINUTE, 'back on the grid');
  await clock.advance(5 * MINUTE);
  assert.equal(held.runs, [10 * MINUTE, 30 * MINUTE]);
  await loop.stop();
});

test('a grid: due times missed while the process slept make one run, then it is back on its grid', async () => {
  const clock = steppedClock();
  const start = clock.now();
  const runs: number[] = [];
  const loop = new RecurringTask({ cadence: { everyMs: () => 10 * MINUTE }, task: async () => void runs.push(clock.now() - start), onError: noError, timers: clock.timers });
  loop.start();
  // a suspended machine: the timer fires only at 35 minutes
  [...clock.pending.values()][0]!.at = start + 35 * MINUTE;
  await clock.advance(35 * MINUTE);
  assert.equal(runs, [35 * MINUTE]);
  assert.is(loop.nextDueAt(), start + 40 * MINUTE);
  await clock.advance(5 * MINUTE);
  assert.equal(runs, [35 * MINUTE, 40 * MINUTE]);
  await loop.stop();
});

test('a pause: the next run comes a pause after the previous one ended, the pause read again after every run', async () => {
  const clock = steppedClock();
  const held = heldTask(clock);
  let pause = 1000;
  const loop = new RecurringTask({ cadence: { pauseMs: () => pause }, task: held.task, onError: noError, timers: clock.timers });
  loop.start();
  await clock.advance(1000);
  assert.equal(held.runs, [1000]);
  // the run takes 700 ms: the next is 1000 ms after its end, not on a grid
  await clock.advance(700);
  held.releaseAll();
  await clock.advance(999);
  assert.equal(held.runs, [1000]);
  pause = 5000;
  await clock.advance(1);
  assert.equal(held.runs, [1000, 2700]);
  await clock.advance(4999);
  assert.equal(held.runs, [1000, 2700], 'the pause changed live applies after the next run');
  await clock.advance(1);
  assert.equal(held.runs, [1000, 2700, 7700]);
  await loop.stop();
});

test('wake() runs now; wakes during a run make exactly one more run after it', async () => {
  const clock = steppedClock();
  const held = heldTask(clock);
  const loop = new RecurringTask({ cadence: { pauseMs: () => MINUTE }, task: held.task, onError: noError, timers: clock.timers });
  loop.wake();
  await clock.advance(0);
  assert.is(held.runs.length, 0, 'a wake before start does nothing');
  loop.start();
  loop.wake();
  await clock.advance(0);
  assert.is(held.runs.length, 1, 'woken at once, not after the pause');
  loop.wake();
  loop.wake();
  loop.wake();
  await clock.advance(0);
  assert.is(held.runs.length, 1, 'no second run while one is under way');
  held.release();
  await clock.advance(0);
  assert.is(held.runs.length, 2, 'the three wakes made one more run');
  held.releaseAll();
  await clock.advance(MINUTE - 1);
  assert.is(held.runs.length, 2, 'then the pause, with no further run');
  await clock.advance(1);
  assert.is(held.runs.length, 3);
  await loop.stop();
});

test('a wake on a grid runs now and leaves the grid where it was', async () => {
  const clock = steppedClock();
  const start = clock.now();
  const runs: number[] = [];
  const loop = new RecurringTask({ cadence: { everyMs: () => 500 }, task: async () => void runs.push(clock.now() - start), onError: noError, timers: clock.timers });
  loop.start();
  await clock.advance(200);
  loop.wake();
  await clock.advance(0);
  await clock.advance(300);
  assert.equal(runs, [200, 500]);
  await loop.stop();
});

test('stop() during a run waits for it; no run starts after, woken or due', async () => {
  const clock = steppedClock();
  const held = heldTask(clock);
  const loop = new RecurringTask({ cadence: { pauseMs: () => 1 }, task: held.task, onError: noError, timers: clock.timers });
  loop.start();
  await clock.advance(1);
  assert.is(held.runs.length, 1);
  loop.wake();
  let stopped = false;
  const stopping = loop.stop().then(() => (stopped = true));
  await clock.advance(0);
  assert.is(stopped, false, 'stop() waits for the run under way');
  held.releaseAll();
  await stopping;
  loop.wake();
  await clock.advance(10_000);
  assert.is(held.runs.length, 1);
  assert.is(clock.pending.size, 0, 'no timer left behind');
  assert.is(loop.nextDueAt(), undefined);
});

test('a failed run (a rejection or a throw) is reported and the loop goes on', async () => {
  const clock = steppedClock();
  const errors: string[] = [];
  let runs = 0;
  const loop = new RecurringTask({
    cadence: { everyMs: () => MINUTE },
    task: (() => {
      runs++;
      if (runs === 1) throw new Error('thrown');
      return runs === 2 ? Promise.reject(new Error('rejected')) : Promise.resolve();
    }) as () => Promise<unknown>,
    onError: (err) => errors.push((err as Error).message),
    timers: clock.timers,
  });
  loop.start();
  await clock.advance(3 * MINUTE);
  assert.is(runs, 3);
  assert.equal(errors, ['thrown', 'rejected']);
  await loop.stop();
});

test('waits beyond the timer limit are taken in steps instead of firing at once', async () => {
  for (const cadence of [{ everyMs: () => 40 * 1440 * MINUTE }, { pauseMs: () => 40 * 1440 * MINUTE }]) {
    const clock = steppedClock();
    const days40 = 40 * 1440 * MINUTE;
    let runs = 0;
    const loop = new RecurringTask({ cadence, task: async () => void runs++, onError: noError, timers: clock.timers });
    loop.start();
    await clock.advance(MAX_TIMER_MS);
    assert.is(runs, 0);
    await clock.advance(days40 - MAX_TIMER_MS);
    assert.is(runs, 1);
    assert.ok(clock.requested.every((ms) => ms <= MAX_TIMER_MS), `every timer within the limit (${Object.keys(cadence)[0]})`);
    await loop.stop();
  }
});

test('reschedule() reads the interval again and starts the grid from now; a non-positive interval is refused', async () => {
  const clock = steppedClock();
  const start = clock.now();
  const runs: number[] = [];
  let every = 60 * MINUTE;
  const loop = new RecurringTask({ cadence: { everyMs: () => every }, task: async () => void runs.push(clock.now() - start), onError: noError, timers: clock.timers });
  loop.start();
  await clock.advance(50 * MINUTE);
  every = 20 * MINUTE;
  loop.reschedule();
  assert.is(loop.nextDueAt(), start + 70 * MINUTE);
  await clock.advance(40 * MINUTE);
  assert.equal(runs, [70 * MINUTE, 90 * MINUTE]);
  every = 0;
  assert.throws(() => loop.reschedule(), /positive/);
  await loop.stop();
  assert.throws(() => new RecurringTask({ cadence: { everyMs: () => -1 }, task: async () => undefined, onError: noError }).start(), /positive/);
});

test('the real timers never keep the process alive', () => {
  const handle = realTimers.setTimeout(() => undefined, 10_000) as NodeJS.Timeout;
  assert.is(handle.hasRef(), false);
  realTimers.clearTimeout(handle);
});

test.run();
