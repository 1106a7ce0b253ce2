import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { IntervalSchedule, MAX_TIMER_MS, type ScheduleTimers } from '../../../../host/platform/cleanup/cleanup-schedule.js';

const MINUTE = 60_000;

/** A clock that moves only when told; timeouts fire as time passes them, in order. */
function steppedClock(start = 1_000_000) {
  let now = start;
  let seq = 0;
  const pending = new Map<number, { at: number; fn: () => void; ms: number }>();
  const requested: number[] = [];
  const timers: ScheduleTimers = {
    now: () => now,
    setTimeout: (fn, ms) => {
      requested.push(ms);
      pending.set(++seq, { at: now + ms, fn, ms });
      return seq;
    },
    clearTimeout: (handle) => void pending.delete(handle as number),
  };
  const advance = (ms: number) => {
    const until = now + ms;
    for (;;) {
      const next = [...pending.entries()].sort((a, b) => a[1].at - b[1].at)[0];
      if (!next || next[1].at > until) break;
      pending.delete(next[0]);
      now = next[1].at;
      next[1].fn();
    }
    now = until;
  };
  return { timers, advance, pending, requested, now: () => now };
}

test('90 minutes means every 90 minutes, not a cron rounding', () => {
  const clock = steppedClock();
  const runs: number[] = [];
  const start = clock.now();
  const schedule = new IntervalSchedule(90 * MINUTE, async () => void runs.push(clock.now() - start), clock.timers);
  schedule.start();
  clock.advance(89 * MINUTE);
  assert.equal(runs, []);
  clock.advance(MINUTE);
  assert.equal(runs, [90 * MINUTE]);
  clock.advance(4 * 90 * MINUTE);
  assert.equal(runs, [90, 180, 270, 360, 450].map((m) => m * MINUTE));
});

test('due times missed while the process slept run once, then the schedule is back on its grid', () => {
  const clock = steppedClock();
  const start = clock.now();
  const runs: number[] = [];
  const schedule = new IntervalSchedule(10 * MINUTE, async () => void runs.push(clock.now() - start), clock.timers);
  schedule.start();
  // the process sleeps through three due times (a suspended machine): one run, then back on the grid
  const entry = [...clock.pending.values()][0]!;
  entry.at = start + 35 * MINUTE;
  clock.advance(35 * MINUTE);
  assert.equal(runs, [35 * MINUTE]);
  assert.is(schedule.nextDueAt(), start + 40 * MINUTE);
  clock.advance(5 * MINUTE);
  assert.equal(runs, [35 * MINUTE, 40 * MINUTE]);
});

test('intervals beyond the timer limit wait in steps instead of firing at once', () => {
  const clock = steppedClock();
  const runs: number[] = [];
  const days40 = 40 * 1440 * MINUTE;
  const schedule = new IntervalSchedule(days40, async () => void runs.push(clock.now()), clock.timers);
  schedule.start();
  assert.ok(clock.requested.every((ms) => ms <= MAX_TIMER_MS));
  clock.advance(MAX_TIMER_MS);
  assert.equal(runs, []);
  clock.advance(days40 - MAX_TIMER_MS);
  assert.is(runs.length, 1);
  assert.ok(clock.requested.every((ms) => ms <= MAX_TIMER_MS));
});

test('a failing run does not stop the schedule; stop() does', async () => {
  const clock = steppedClock();
  let calls = 0;
  const schedule = new IntervalSchedule(
    MINUTE,
    async () => {
      calls++;
      throw new Error('storage down');
    },
    clock.timers,
  );
  schedule.start();
  clock.advance(3 * MINUTE);
  await Promise.resolve();
  assert.is(calls, 3);
  schedule.stop();
  assert.is(clock.pending.size, 0);
  clock.advance(10 * MINUTE);
  assert.is(calls, 3);
  assert.is(schedule.nextDueAt(), undefined);
});

test('a non-positive interval is refused', () => {
  assert.throws(() => new IntervalSchedule(0, async () => undefined), /positive/);
});

test.run();
