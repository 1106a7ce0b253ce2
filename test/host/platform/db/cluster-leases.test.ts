import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ClusterLeases } from '../../../../host/platform/db/cluster-leases.js';
import { openDatabase } from '../../../../host/platform/db/database.js';
import { twoInstancesForSuite } from '../../../support/pg.js';
import { removeDir, tempDir, until } from '../../../support/gateway.js';
import { withClockSkew } from '../../../support/clock-skew.js';

/** Two instances on one PostgreSQL database, each with its own pool, as two gateways have. */
const cluster = twoInstancesForSuite(test);

test('one holder at a time: a live lease of another is refused, its own is renewed', async () => {
  const one = new ClusterLeases(cluster.a.db, cluster.a.dialect, () => 60_000);
  const two = new ClusterLeases(cluster.b.db, cluster.b.dialect, () => 60_000);
  assert.ok(await one.acquire('work.a'));
  assert.not.ok(await two.acquire('work.a'));
  assert.ok(await one.acquire('work.a'), 'the holder renews');
  assert.is(await two.holder('work.a'), one.owner);
  assert.ok(await two.acquire('work.b'), 'another name is free');
  await one.stop();
  await two.stop();
});

test('the database\'s clock decides expiry: an instance whose clock is ahead or behind neither takes a live lease nor writes an expired one', async () => {
  const tenMinutes = 600_000;
  const one = new ClusterLeases(cluster.a.db, cluster.a.dialect, () => 60_000);
  const ahead = new ClusterLeases(cluster.b.db, cluster.b.dialect, () => 60_000);
  assert.ok(await one.acquire('skew.ahead'));
  assert.not.ok(await withClockSkew(tenMinutes, () => ahead.acquire('skew.ahead')), 'a clock ahead sees the lease as live');
  assert.is(await withClockSkew(tenMinutes, () => ahead.holder('skew.ahead')), one.owner);

  const behind = new ClusterLeases(cluster.a.db, cluster.a.dialect, () => 60_000);
  const other = new ClusterLeases(cluster.b.db, cluster.b.dialect, () => 60_000);
  assert.ok(await withClockSkew(-tenMinutes, () => behind.acquire('skew.behind')));
  assert.not.ok(await other.acquire('skew.behind'), 'a clock behind still writes a live lease');
  assert.is(await other.holder('skew.behind'), behind.owner);
  await Promise.all([one, ahead, behind, other].map((l) => l.stop()));
});

test('exclusive: of instances racing the same task, exactly one runs it', async () => {
  const instances = [new ClusterLeases(cluster.a.db, cluster.a.dialect, () => 60_000), new ClusterLeases(cluster.b.db, cluster.b.dialect, () => 60_000), new ClusterLeases(cluster.a.db, cluster.a.dialect, () => 60_000)];
  let runs = 0;
  const outcomes = await Promise.all(instances.map((l) => l.exclusive('race', async () => void runs++)()));
  assert.is(runs, 1);
  assert.is(outcomes.filter(Boolean).length, 1);
  // the holder keeps it on the next round; the others still skip
  const holder = instances[outcomes.indexOf(true)]!;
  const again = await Promise.all(instances.map((l) => l.exclusive('race', async () => void runs++)()));
  assert.is(runs, 2);
  assert.is(again.indexOf(true), outcomes.indexOf(true));
  await Promise.all(instances.map((l) => l.stop()));
  assert.is(await holder.holder('race'), undefined, 'a graceful stop hands the lease back');
});

test('a holder that stops renewing (a dead instance) loses the lease once it expires, and another takes over', async () => {
  const dead = new ClusterLeases(cluster.a.db, cluster.a.dialect, () => 400);
  const alive = new ClusterLeases(cluster.b.db, cluster.b.dialect, () => 400);
  assert.ok(await dead.acquire('takeover'));
  // The dead one's renewal ends as a killed process's would (its row is not released).
  (dead as unknown as { stopped: boolean }).stopped = true;
  await new Promise((r) => setTimeout(r, 150));
  assert.not.ok(await alive.acquire('takeover'), 'still held before expiry');
  await until(() => alive.acquire('takeover'), 5000, 50);
  assert.is(await alive.holder('takeover'), alive.owner);
  await alive.stop();
});

test('renewal keeps a lease held past its ttl while the holder lives', async () => {
  const holder = new ClusterLeases(cluster.a.db, cluster.a.dialect, () => 1500);
  const other = new ClusterLeases(cluster.b.db, cluster.b.dialect, () => 1500);
  assert.ok(await holder.acquire('kept'));
  await new Promise((r) => setTimeout(r, 2500));
  assert.not.ok(await other.acquire('kept'));
  await holder.stop();
  assert.ok(await other.acquire('kept'));
  await other.stop();
});

test('not shared (SQLite, one process) the lease is always this process\'s, whatever a killed one left', async () => {
  const dir = tempDir();
  const db = await openDatabase({ url: undefined, dataDir: dir });
  // a row a killed earlier process left, still live
  await db.db.insertInto('cluster_leases').values({ name: 'solo', owner: 'earlier-process', lease_until: Date.now() + 600_000 }).execute();
  const leases = new ClusterLeases(db.db, db.dialect, () => 1000);
  let ran = 0;
  assert.ok(await leases.exclusive('solo', async () => void ran++)());
  assert.ok(await leases.exclusive('solo', async () => void ran++)());
  assert.is(ran, 2);
  await leases.stop();
  await db.close();
  removeDir(dir);
});

test.run();
