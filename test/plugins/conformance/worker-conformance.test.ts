import { suite } from 'uvu';
import { conformance } from 'switchboard/sdk/testing';
import faxSim from '../../../plugins/fax-sim/index.js';
import retrievalSqlite from '../../../plugins/retrieval-sqlite/index.js';
import storageLocal from '../../../plugins/storage-local/index.js';
import { makePdf, startFaxDocumentServer, type FaxDocumentServer } from '../../fakes/fax-document-server.js';
import { removeDir, tempDir } from '../../support/gateway.js';
import { isolatedBuiltin } from '../../support/isolated-builtin.js';

// The other isolation mode: one plugin of each channel-heavy kind in a worker thread, as
// PLUGIN_ISOLATION=<id>=worker runs it (the isolated-*-conformance files run every built-in in a
// child process; the channel is the same code, the transport and the limits differ).

// A worker per case on a loaded machine.
const timeouts = { startMs: 30_000 };
const dataDir = tempDir('switchboard-worker-conformance-');

{
  const test = suite('storage-local, in a worker: storage conformance');
  for (const c of conformance.storage({ plugin: storageLocal, pluginId: 'storage-local', dataDir, settings: { root: 'conformance' }, isolation: isolatedBuiltin('storage-local', 'worker'), timeouts })) test(c.name, c.run);
  test.run();
}

{
  const test = suite('retrieval-sqlite, in a worker: retrieval conformance');
  for (const c of conformance.retrieval({ plugin: retrievalSqlite, pluginId: 'retrieval-sqlite', dataDir, enrichment: true, metadata: true, isolation: isolatedBuiltin('retrieval-sqlite', 'worker'), timeouts })) test(c.name, c.run);
  test.run();
}

{
  const test = suite('fax-sim, in a worker: fax conformance');
  let documents: FaxDocumentServer;
  let n = 0;
  test.before(async () => {
    documents = await startFaxDocumentServer();
  });
  test.after(async () => {
    await documents.close();
    removeDir(dataDir);
  });
  const sample = async () => {
    const jobId = `conf-worker-${++n}`;
    return { jobId, to: '+15551230003', document: documents.document(jobId, await makePdf(1), 1), publicBaseUrl: 'https://gateway.example.test' };
  };
  for (const c of conformance.fax({ plugin: faxSim, pluginId: 'fax-sim', sample, settings: { secret: 'conformance-secret-0123456789', delayMs: 20 }, isolation: isolatedBuiltin('fax-sim', 'worker'), timeouts })) test(c.name, c.run);
  test.run();
}
