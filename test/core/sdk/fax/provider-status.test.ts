import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { NotAcceptedError, type FaxDocument } from 'switchboard/sdk';
import { namesDocumentOfJob, providerStatus, readDocumentFile, statusWords } from 'switchboard/sdk/fax';

test('status words are matched without case or space; unknown words fall back', () => {
  const map = statusWords({ Delivered: 'SUCCESS', failed: 'FAILED' });
  assert.is(map(' delivered '), 'SUCCESS');
  assert.is(map('FAILED'), 'FAILED');
  assert.is(map('whatever'), 'queued');
  assert.is(map(undefined), 'queued');
  assert.is(statusWords({}, 'in_progress')('x'), 'in_progress');
});

test('a provider status keeps only the facts given: whole page counts, non-empty texts', () => {
  assert.equal(providerStatus('SUCCESS', { providerSid: 's', pages: '3', error: '', raw: 'done' }), { providerSid: 's', status: 'SUCCESS', pages: 3, raw: 'done' });
  assert.equal(providerStatus('FAILED', { pages: -1, error: 'busy', raw: null }), { status: 'FAILED', error: 'busy' });
  assert.equal(providerStatus('queued', { pages: 2.5 }), { status: 'queued' });
});

test('a fax record names our job by its PDF URL (string or list, encoded or not)', () => {
  assert.ok(namesDocumentOfJob('https://gw.example/fax/job 1/pdf?token=t'.replace(' ', '%20'), 'job 1'));
  assert.ok(namesDocumentOfJob(['x', 'https://gw.example/fax/j2/pdf?token=t'], 'j2'));
  assert.not.ok(namesDocumentOfJob('https://gw.example/fax/j22/pdf', 'j2'));
  assert.not.ok(namesDocumentOfJob(undefined, 'j2'));
});

test('the document as an upload part; a storage failure is NotAccepted', async () => {
  const pdf = Buffer.from('%PDF-1.4 test');
  const document = (read: () => Promise<Buffer>): FaxDocument => ({ url: 'u', pages: 1, read, saveArtifact: async () => ({ key: 'k' }), renderTiff: async () => ({ key: 'k', pages: 1 }) });
  const part = await readDocumentFile({ jobId: 'j9', to: '+1', publicBaseUrl: 'p', document: document(async () => pdf) });
  assert.is(part.filename, 'j9.pdf');
  assert.is(part.file.type, 'application/pdf');
  assert.equal(Buffer.from(await part.file.arrayBuffer()), pdf);
  const err = await readDocumentFile({ jobId: 'j9', to: '+1', publicBaseUrl: 'p', document: document(async () => { throw new Error('disk'); }) }).catch((e: Error) => e);
  assert.instance(err, NotAcceptedError);
});

test.run();
