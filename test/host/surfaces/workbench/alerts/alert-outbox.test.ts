import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AlertOutbox } from '../../../../../host/surfaces/workbench/alerts/alert-outbox.js';
import type { AlertNotice } from '../../../../../host/surfaces/workbench/alerts/alert-notice.js';
import { twoInstancesForSuite } from '../../../../support/pg.js';
import { withClockSkew } from '../../../../support/clock-skew.js';

// The outbox in the shared database, as two gateway instances see it: each its own pool.
const cluster = twoInstancesForSuite(test);

let n = 0;
const notice = (): AlertNotice => {
  const at = new Date().toISOString();
  return { id: `test:${++n}`, event_id: `event-${n}`, type: 'test', category: 'test', severity: 'warning', status: 'firing', title: 'a test', labels: {}, starts_at: at, ends_at: null, sent_at: at, context: {} };
};

test('leases run by the database\'s clock: an instance whose clock is ahead takes no delivery another holds, one whose clock is behind still writes a live lease', async () => {
  const tenMinutes = 600_000;
  const [one, two] = [new AlertOutbox(cluster.a.db, cluster.a.dialect), new AlertOutbox(cluster.b.db, cluster.b.dialect)];
  await one.enqueue(notice(), 'held', ['target-1']);
  assert.is((await one.claim('one', 10, 60_000)).length, 1);
  assert.equal(await withClockSkew(tenMinutes, () => two.claim('ahead', 10, 60_000)), [], 'a clock ahead sees the lease as live');

  // A notice written by the instance whose clock is behind, due by that clock.
  await withClockSkew(-tenMinutes, () => one.enqueue(notice(), 'behind', ['target-1']));
  const taken = await withClockSkew(-tenMinutes, () => one.claim('behind', 10, 60_000));
  assert.is(taken.length, 1);
  assert.is(taken[0]!.event_key, 'behind');
  assert.equal(await two.claim('two', 10, 60_000), [], 'a clock behind still writes a live lease');

  // Let go, a delivery is free to any instance at once.
  await one.release([taken[0]!.id], 'behind');
  assert.is((await two.claim('two', 10, 60_000))[0]?.id, taken[0]!.id);
});

test.run();
