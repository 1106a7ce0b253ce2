import { suite } from 'uvu';
import type { FaxSendRequest, PluginDefinition } from 'switchboard/sdk';
import { conformance } from 'switchboard/sdk/testing';
import providera from '../../plugins/providera/index.js';
import providerb from '../../plugins/providerb/index.js';
import providerc from '../../plugins/providerc/index.js';
import pbxb from '../../plugins/pbxb/index.js';
import sip from '../../plugins/sip/index.js';
import faxSim from '../../plugins/fax-sim/index.js';
import { AmiFake } from '../fakes/ami-fake.js';
import { EslFake } from '../fakes/esl-fake.js';
import { makePdf, startFaxDocumentServer, type FaxDocumentServer } from '../fakes/fax-document-server.js';
import { startProviderAFake } from '../fakes/providera-fake.js';
import { startProviderBFake } from '../fakes/providerb-fake.js';
import { startProviderCFake } from '../fakes/providerc-fake.js';
import { storeJobDocument, type StoredJob } from '../host/surfaces/fax/documents/stored-job.js';
import { isolatedBuiltin } from './isolated-builtin.js';

/**
 * The SDK's fax conformance suite against every built-in fax plugin and the loopback fake of its
 * provider, in-process or isolated (test/plugins/conformance/ runs both).
 */
export interface FaxConformanceTarget {
  id: string;
  plugin: PluginDefinition;
  /** Starts the plugin's fake; answers the plugin's settings/env and how to stop the fake. */
  start(): Promise<{ settings: Record<string, unknown>; env?: Record<string, string>; close(): Promise<void> }>;
  /** Hosted providers download the PDF by URL; PBX plugins render a TIFF from stored bytes. */
  hosted: boolean;
}

const PROJECT = 'b5c1e2f0-0d6a-4e51-9a3f-1c2d3e4f5a6b';
export const FAX_CONFORMANCE_TARGETS: FaxConformanceTarget[] = [
  {
    id: 'providera',
    plugin: providera,
    hosted: true,
    async start() {
      const fake = await startProviderAFake({ apiKey: 'ca-key', apiSecret: 'ca-secret-value' });
      return { settings: { baseUrl: fake.baseUrl, apiKey: 'ca-key', apiSecret: 'ca-secret-value' }, close: () => fake.close() };
    },
  },
  {
    id: 'providerb',
    plugin: providerb,
    hosted: true,
    async start() {
      const fake = await startProviderBFake({ projectId: PROJECT, apiKey: 'cb-key', apiSecret: 'cb-secret-value' });
      return { settings: { baseUrl: fake.baseUrl, projectId: PROJECT, apiKey: 'cb-key', apiSecret: 'cb-secret-value' }, close: () => fake.close() };
    },
  },
  {
    id: 'providerc',
    plugin: providerc,
    hosted: true,
    async start() {
      const fake = await startProviderCFake({ projectId: PROJECT, apiToken: 'PTconformance0123456789' });
      return { settings: { baseUrl: fake.baseUrl, projectId: PROJECT, apiToken: 'PTconformance0123456789', faxFrom: '+15550009999' }, close: () => fake.close() };
    },
  },
  {
    id: 'pbxb',
    plugin: pbxb,
    hosted: false,
    async start() {
      const fake = await EslFake.start({ password: 'Conf-ESL' });
      return {
        settings: { port: fake.port, callerId: '15550001111' },
        env: { PBXB_ESL_PASSWORD: 'Conf-ESL', PBXB_GATEWAY: 'carrier' },
        close: () => fake.close(),
      };
    },
  },
  {
    id: 'sip',
    plugin: sip,
    hosted: false,
    async start() {
      const fake = await AmiFake.start({ username: 'switchboard', secret: 'Conf-AMI' });
      return { settings: { host: '127.0.0.1', port: fake.port, username: 'switchboard', password: 'Conf-AMI', pingIntervalMs: 0 }, close: () => fake.close() };
    },
  },
  {
    // The simulator is its own provider: no fake, a fixed secret.
    id: 'fax-sim',
    plugin: faxSim,
    hosted: true,
    async start() {
      return { settings: { secret: 'conformance-secret-0123456789', delayMs: 20 }, close: async () => {} };
    },
  },
];

/** Registers and runs the fax suite for `target` as its own uvu suite; `isolated` runs the plugin in a child process. */
export function runFaxConformance(target: FaxConformanceTarget, isolated = false): void {
  const test = suite(`${target.id}${isolated ? ', isolated:' : ''} fax conformance`);
  let fake: Awaited<ReturnType<FaxConformanceTarget['start']>>;
  let documents: FaxDocumentServer | undefined;
  const stored: StoredJob[] = [];
  let n = 0;

  const sample = async (): Promise<FaxSendRequest> => {
    const jobId = `conf-${target.id}${isolated ? '-isolated' : ''}-${++n}`;
    if (target.hosted) return { jobId, to: '+15551230003', document: documents!.document(jobId, await makePdf(1), 1), publicBaseUrl: 'https://gateway.example.test' };
    const job = await storeJobDocument({ pages: 1, jobId });
    stored.push(job);
    return { jobId, to: '+15551230003', document: job.document, publicBaseUrl: '' };
  };

  test.before(async () => {
    fake = await target.start();
    if (target.hosted) documents = await startFaxDocumentServer();
  });
  test.after(async () => {
    for (const job of stored) await job.cleanup();
    await documents?.close();
    await fake.close();
  });

  // The settings are read when each case starts the plugin, after before() started the fake.
  const options = {
    plugin: target.plugin,
    pluginId: target.id,
    sample,
    get settings() {
      return fake.settings;
    },
    get env() {
      return fake.env ?? {};
    },
    // A child process per case on a loaded machine.
    ...(isolated ? { isolation: isolatedBuiltin(target.id), timeouts: { startMs: 30_000 } } : {}),
  };
  for (const c of conformance.fax(options)) test(c.name, c.run);
  test.run();
}
