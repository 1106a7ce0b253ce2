import { suite } from 'uvu';
import path from 'node:path';
import type { FaxSendRequest } from 'switchboard/sdk';
import { conformance } from 'switchboard/sdk/testing';
import faxSim from '../../../plugins/fax-sim/index.js';
import providera from '../../../plugins/providera/index.js';
import retrievalSqlite from '../../../plugins/retrieval-sqlite/index.js';
import storageLocal from '../../../plugins/storage-local/index.js';
import { makePdf, startFaxDocumentServer, type FaxDocumentServer } from '../../fakes/fax-document-server.js';
import { startProviderAFake, type ProviderAFake } from '../../fakes/providera-fake.js';
import { removeDir, ROOT, tempDir } from '../../support/gateway.js';

// The kit's conformance suites run against built-in plugins in a child process, as
// PLUGIN_ISOLATION=<id>=process runs them: every call, document read and event crosses the
// boundary, so a contract that only holds in-process fails here.

const isolated = (id: string) => ({ mode: 'process' as const, entryFile: path.join(ROOT, 'dist/plugins', id, 'index.js') });
// A child process per case on a loaded machine.
const timeouts = { startMs: 30_000 };
const dataDir = tempDir('switchboard-isolated-conformance-');

{
  const test = suite('storage-local, isolated: storage conformance');
  for (const c of conformance.storage({ plugin: storageLocal, pluginId: 'storage-local', dataDir, settings: { root: 'conformance' }, isolation: isolated('storage-local'), timeouts })) test(c.name, c.run);
  test.run();
}

{
  const test = suite('retrieval-sqlite, isolated: retrieval conformance');
  for (const c of conformance.retrieval({ plugin: retrievalSqlite, pluginId: 'retrieval-sqlite', dataDir, enrichment: true, metadata: true, isolation: isolated('retrieval-sqlite'), timeouts })) test(c.name, c.run);
  test.run();
}

{
  const test = suite('fax-sim and providera, isolated: fax conformance');
  let documents: FaxDocumentServer;
  let fake: ProviderAFake;
  let n = 0;
  const sample = async (): Promise<FaxSendRequest> => {
    const jobId = `conf-isolated-${++n}`;
    return { jobId, to: '+15551230003', document: documents.document(jobId, await makePdf(1), 1), publicBaseUrl: 'https://gateway.example.test' };
  };
  test.before(async () => {
    documents = await startFaxDocumentServer();
    fake = await startProviderAFake({ apiKey: 'ca-key', apiSecret: 'ca-secret-value' });
  });
  test.after(async () => {
    await documents.close();
    await fake.close();
    removeDir(dataDir);
  });
  for (const c of conformance.fax({ plugin: faxSim, pluginId: 'fax-sim', sample, settings: { secret: 'conformance-secret-0123456789', delayMs: 20 }, isolation: isolated('fax-sim'), timeouts })) test(`fax-sim: ${c.name}`, c.run);
  // Settings are read when each case starts the plugin, after before() started the fake.
  const provideraOptions = {
    plugin: providera,
    pluginId: 'providera',
    sample,
    isolation: isolated('providera'),
    timeouts,
    get settings() {
      return { baseUrl: fake.baseUrl, apiKey: 'ca-key', apiSecret: 'ca-secret-value' };
    },
  };
  for (const c of conformance.fax(provideraOptions)) test(`providera: ${c.name}`, c.run);
  test.run();
}
