import { startPlugin, type StartedPlugin } from 'switchboard/sdk/testing';
import type { FaxDocument, FaxProvider, FaxSendRequest } from 'switchboard/sdk';
import type { Manifest } from '../../../../core/manifest/index.js';
import { createHttpFaxPlugin } from '../../../../core/declarative/http-fax/index.js';
import { makePdf, startFaxDocumentServer, type FaxDocumentServer } from '../../../fakes/fax-document-server.js';

export const JOB_ID = 'job-0001';

export interface HttpFaxUnderTest {
  started: StartedPlugin;
  fax: FaxProvider;
  pdf: Buffer;
  document: FaxDocument;
  /** A send request for the job's PDF. */
  request(to?: string): FaxSendRequest;
  stop(): Promise<void>;
}

/**
 * Starts the manifest's plugin with the real wiring (egress from the manifest), and serves the
 * job's PDF from the gateway's stand-in document server.
 */
export async function startHttpFax(manifest: Manifest, settings: Record<string, unknown>, options: { logLines?: string[] } = {}): Promise<HttpFaxUnderTest> {
  const started = await startPlugin(createHttpFaxPlugin(manifest), {
    pluginId: manifest.id,
    settings,
    egress: manifest.egress ?? [],
    ...(options.logLines ? { logLines: options.logLines } : {}),
  });
  const documents: FaxDocumentServer = await startFaxDocumentServer();
  const pdf = await makePdf(1);
  const document = documents.document(JOB_ID, pdf, 1);
  return {
    started,
    fax: started.instance.providers.fax!,
    pdf,
    document,
    request: (to = '+15551234567') => ({ jobId: JOB_ID, to, document, publicBaseUrl: 'http://127.0.0.1:8080' }),
    async stop() {
      await started.stop();
      await documents.close();
    },
  };
}
