import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import { sql } from '../../../../../host/platform/db/kysely-runtime.js';
import { FaxJobStore, type NewFaxJob } from '../../../../../host/surfaces/fax/jobs/job-store.js';
import { SubmitGroupCommit } from '../../../../../host/surfaces/fax/jobs/submit-group-commit.js';
import { createLocalStorage } from '../../../../../plugins/storage-local/index.js';
import type { StorageProvider } from '../../../../../core/sdk/index.js';
import { tempDir } from '../../../../support/gateway.js';
import { SQLITE_AND_POSTGRES } from '../../../../support/pg.js';
import type { GatewayDatabase } from '../../../../support/database.js';


let n = 0;
const newJob = (over: Partial<NewFaxJob> = {}): NewFaxJob => {
  const id = `job-${++n}-${Math.random().toString(36).slice(2, 8)}`;
  return { id, to: '+15550100100', backend: 'providera', pdfKey: `fax/${id}/document.pdf`, pages: 1, sourceType: 'pdf', sizeBytes: 4, disabled: false, ...over };
};

for (const backend of SQLITE_AND_POSTGRES) {
  const test = suite(`submit group commit on ${backend.name}`);
  let opened: { db: GatewayDatabase; cleanup(): Promise<void> };
  let store: FaxJobStore;
  let storageDir: string;
  let storage: StorageProvider;
  let group: SubmitGroupCommit;

  test.before(async () => {
    opened = await backend.open();
    store = new FaxJobStore(opened.db.db, opened.db.dialect);
    storageDir = tempDir();
    storage = createLocalStorage(storageDir);
    group = new SubmitGroupCommit({ store, withStorage: (fn) => fn(storage), waitMs: () => 30 });
  });
  test.after(async () => {
    await opened.db.close();
    await opened.cleanup();
    rmSync(storageDir, { recursive: true, force: true });
  });

  test('submits within the wait are stored together: every document and every row, the rows by one statement', async () => {
    const jobs = Array.from({ length: 5 }, () => newJob());
    const rows = await Promise.all(jobs.map((job, i) => group.submit(job, Buffer.from(`pdf${i}`))));
    assert.equal(
      rows.map((r) => r.id),
      jobs.map((j) => j.id),
    );
    for (const [i, job] of jobs.entries()) {
      assert.is((await store.get(job.id))?.status, 'queued');
      assert.is((await storage.get(job.pdfKey)).toString(), `pdf${i}`);
    }
    if (backend.name === 'postgres') {
      // One statement, one transaction: the rows share the id of the transaction that wrote them.
      const xids = await sql<{ xmin: string }>`select xmin::text as xmin from fax_jobs where id in (${sql.join(jobs.map((j) => j.id))})`.execute(opened.db.db);
      assert.is(new Set(xids.rows.map((r) => r.xmin)).size, 1, JSON.stringify(xids.rows));
    }
  });

  test('a row that cannot be inserted fails its submit alone, and its document is removed', async () => {
    const taken = newJob();
    await store.insert(taken);
    const clash = newJob({ id: taken.id, pdfKey: `fax/${taken.id}-again/document.pdf` });
    const good = [newJob(), newJob()];
    const outcomes = await Promise.allSettled([group.submit(good[0]!, Buffer.from('a')), group.submit(clash, Buffer.from('b')), group.submit(good[1]!, Buffer.from('c'))]);
    assert.equal(
      outcomes.map((o) => o.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    for (const job of good) assert.ok(await store.get(job.id));
    assert.ok(await storage.exists(good[0]!.pdfKey));
    assert.not.ok(await storage.exists(clash.pdfKey), 'the failed submit left no document');
  });

  test('a document that cannot be stored fails its submit alone, with no row', async () => {
    const bad = newJob({ pdfKey: '../outside.pdf' });
    const good = newJob();
    const outcomes = await Promise.allSettled([group.submit(bad, Buffer.from('x')), group.submit(good, Buffer.from('y'))]);
    assert.equal(
      outcomes.map((o) => o.status),
      ['rejected', 'fulfilled'],
    );
    assert.not.ok(await store.get(bad.id));
    assert.ok(await store.get(good.id));
  });

  test.run();
}
