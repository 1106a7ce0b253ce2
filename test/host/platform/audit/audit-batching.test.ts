import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import { AuditLog } from '../../../../host/platform/audit/audit-log.js';
import { DatabaseAuditSink } from '../../../../host/platform/audit/db-sink.js';
import { openDatabase, type OpenedDatabase } from '../../../../host/platform/db/database.js';
import { removeDir, tempDir } from '../../../support/gateway.js';

const dir = tempDir('audit-batching-');
let database: OpenedDatabase;
test.before(async () => {
  database = await openDatabase({ dataDir: dir });
});
test.after(async () => {
  await database.close();
  removeDir(dir);
});

test('records made together are written in order, in far fewer database inserts than records', async () => {
  const file = path.join(dir, 'audit.log');
  const audit = new AuditLog({ enabled: () => true, file: () => file, logger: pino({ level: 'silent' }) });
  const sink = new DatabaseAuditSink(database.db);
  // The real sink, counted: how many batches reached the database.
  let batches = 0;
  audit.addSink({ write: (r, l) => sink.write(r, l), writeMany: (entries) => (batches++, sink.writeMany(entries)) });
  for (let i = 0; i < 450; i++) audit.record('batch_test', { n: i });
  await audit.flush();
  const stored = (await sink.recent({ event: 'batch_test', limit: 1000 })).reverse();
  assert.equal(
    stored.map((s) => s.record.n),
    Array.from({ length: 450 }, (_, i) => i),
  );
  assert.ok(batches >= 1 && batches <= 3, `${batches} batches for 450 records`);
  const lines = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l).n);
  assert.equal(lines, Array.from({ length: 450 }, (_, i) => i), 'the file holds every record once, in order');
});

test('a record made while a batch is being written is in the next batch, not lost', async () => {
  const audit = new AuditLog({ enabled: () => true, file: () => undefined, logger: pino({ level: 'silent' }) });
  const seen: unknown[][] = [];
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  audit.addSink({
    write: () => assert.unreachable('writeMany is used'),
    writeMany: async (entries) => {
      seen.push(entries.map((e) => e.record.n));
      if (seen.length === 1) await gate;
    },
  });
  audit.record('x', { n: 1 });
  await new Promise((r) => setImmediate(r));
  audit.record('x', { n: 2 });
  audit.record('x', { n: 3 });
  release();
  await audit.flush();
  assert.equal(seen, [[1], [2, 3]]);
});

test.run();
