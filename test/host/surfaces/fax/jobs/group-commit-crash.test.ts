import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { makePdf } from '../../../../fakes/fax-document-server.js';
import { json, postFax, removeDir, tempDir } from '../../../../support/gateway.js';
import { startChildGateway, type ChildGateway } from '../../../../support/child-gateway.js';

const CONCURRENCY = 16;
let dataDir: string;
let gateway: ChildGateway | undefined;

// A long wait, so that the kill finds submits waiting for their batch as well as batches being written.
const env = () => ({ DATA_DIR: dataDir, ENV_FILE: `${dataDir}/none.env`, FAX_DISABLED: 'true', FAX_GROUP_COMMIT_MS: '25', MAX_REQUESTS_PER_MINUTE: '100000000' });

test.before(() => {
  dataDir = tempDir();
});
test.after(async () => {
  await gateway?.kill('SIGKILL');
  removeDir(dataDir);
});

test('SIGKILL during a burst of group-committed submits loses no accepted job and leaves no half-written document', async () => {
  gateway = await startChildGateway(env());
  const pdf = await makePdf(1);
  const accepted: string[] = [];
  let sent = 0;
  let killed = false;
  const kill = (async () => {
    while (accepted.length < 40) await new Promise((r) => setImmediate(r));
    killed = true;
    await gateway!.kill('SIGKILL');
  })();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (!killed) {
        sent++;
        const res = await postFax(gateway!.url, '+15550108888', pdf).catch(() => undefined);
        if (!res) return; // the connection died with the process: no answer, no promise
        if (res.status !== 202) throw new Error(`POST /fax answered ${res.status}`);
        accepted.push((await json(res)).id);
      }
    }),
  );
  await kill;

  const storageDir = path.join(dataDir, 'storage');
  gateway = await startChildGateway(env());
  for (const id of accepted) {
    const res = await fetch(`${gateway.url}/fax/${id}`);
    assert.is(res.status, 200, `accepted job ${id} lost`);
    assert.ok(readFileSync(path.join(storageDir, 'fax', id, 'document.pdf')).equals(pdf), `document of ${id} incomplete`);
  }
  // Documents without a row can only be those of submits that got no answer (the artifact
  // cleanup's orphan sweep removes them); nothing is half-written, and the temp files are gone.
  const unanswered = sent - accepted.length;
  const orphans: string[] = [];
  for (const id of readdirSync(path.join(storageDir, 'fax'))) {
    if ((await fetch(`${gateway.url}/fax/${id}`)).status === 404) orphans.push(id);
    const file = path.join(storageDir, 'fax', id, 'document.pdf');
    // A folder the kill left empty is an orphan too; a document in place is whole (renamed after its fsync).
    if (existsSync(file)) assert.ok(readFileSync(file).equals(pdf), `document of ${id} half-written`);
  }
  assert.ok(orphans.length <= unanswered && unanswered <= CONCURRENCY, `${orphans.length} documents without a row, ${unanswered} submits unanswered`);
  const tmp = path.join(storageDir, '.tmp');
  assert.equal(existsSync(tmp) ? readdirSync(tmp) : [], [], 'temp files left');
});

test.run();
