import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ErrorCatalogue } from '../../../../host/platform/http/error-catalogue.js';
import { httpErrorMapping } from '../../../../host/platform/http/error-mapping.js';
import { PLATFORM_HTTP_ERRORS } from '../../../../host/platform/http/platform-http-errors.js';
import { defineError, errorVocabulary } from '../../../../host/platform/errors/error-vocabulary.js';
import { DomainError } from '../../../../host/platform/errors/domain-error.js';
import { invalidInput, malformedInput } from '../../../../host/platform/errors/platform-errors.js';
import { FAX_HTTP_ERRORS } from '../../../../host/surfaces/fax/http/fax-http-errors.js';
import { SEARCH_HTTP_ERRORS } from '../../../../host/surfaces/search/http/search-http-errors.js';
import { WORKBENCH_HTTP_ERRORS } from '../../../../host/surfaces/workbench/http/workbench-http-errors.js';
import { faxErrors } from '../../../../host/surfaces/fax/fax-errors.js';
import { RunAlreadyRunningError } from '../../../../host/surfaces/search/indexing/index-run-store.js';
import { PluginNotAvailableError, SettingsValidationError } from '../../../../core/kernel/kernel.js';
import { StorageNotFoundError, WebhookRejectedError } from '../../../../core/sdk/index.js';
import { SystemOneError } from '../../../../core/sdk/judge/index.js';
import { ConfigFileUnreadableError, ConfigValidationError } from '../../../../host/platform/config/registry.js';
import { InvalidDocumentError, UnsupportedDocumentError } from '../../../../host/surfaces/fax/documents/errors.js';
import { ContainerControlError } from '../../../../host/surfaces/workbench/containers/container-controls.js';

// The gateway's catalogue: the platform's codes, then each surface's, as the gateway merges them.
const catalogue = new ErrorCatalogue([PLATFORM_HTTP_ERRORS, FAX_HTTP_ERRORS, SEARCH_HTTP_ERRORS, WORKBENCH_HTTP_ERRORS]);
const answer = (err: unknown, on = catalogue) => {
  const http = on.toHttp(err);
  return http && { status: http.status, code: http.code, detail: http.detail };
};

test('an unavailable plugin is a 503 wherever it happens (one mapping, not one per route)', () => {
  assert.equal(answer(new PluginNotAvailableError('storage-s3', 'storage', 'failed')), {
    status: 503,
    code: 'plugin_not_available',
    detail: 'plugin "storage-s3" is not active (state: failed) for storage',
  });
});

test('validation failures name their field, with the status their routes document', () => {
  assert.equal(answer(new ConfigValidationError([{ key: 'FINAL_K', message: 'too big' }, { key: 'NOPE', message: 'unknown configuration key' }])), {
    status: 422,
    code: 'validation_error',
    detail: 'FINAL_K: too big; NOPE: unknown configuration key',
  });
  assert.equal(answer(new SettingsValidationError('colour', 'unknown setting "colour"')), { status: 400, code: 'validation_error', detail: 'colour: unknown setting "colour"' });
  assert.is(answer(new ConfigFileUnreadableError('/x/config.json', 'not valid JSON'))?.status, 409);
  assert.equal(answer(malformedInput('to', 'required')), { status: 400, code: 'validation_error', detail: 'to: required' });
  assert.is(answer(invalidInput('to', 'required'))?.status, 422);
});

test('a surface\'s domain error is answered with the status its mapping gives the code', () => {
  assert.equal(answer(faxErrors.error('fax_job_not_found', { id: 'abc' })), { status: 404, code: 'fax_job_not_found', detail: 'fax job "abc" not found' });
  // a hint the code documents is honoured; one it does not document is not
  assert.is(answer(faxErrors.errorWithHint('webhook_rejected', 403, { reason: 'bad token' }))?.status, 403);
  assert.is(answer(faxErrors.errorWithHint('fax_job_not_found', 500, { id: 'x' }))?.status, 404);
});

test('documents, storage, webhooks, containers and judges map to their codes', () => {
  assert.is(answer(new InvalidDocumentError('encrypted PDF'))?.status, 400);
  assert.is(answer(new UnsupportedDocumentError('a ZIP archive'))?.status, 415);
  assert.equal(answer(new StorageNotFoundError('fax/x/document.pdf')), { status: 404, code: 'document_expired', detail: 'document expired' });
  assert.equal(answer(new WebhookRejectedError(403, 'token', 'invalid token')), { status: 403, code: 'webhook_rejected', detail: 'invalid token' });
  assert.equal(answer(new ContainerControlError('confirmation_required', 'type the service name')), { status: 409, code: 'confirmation_required', detail: 'type the service name' });
  assert.is(answer(new ContainerControlError('engine_unreachable', 'no engine'))?.status, 503);
  assert.equal(answer(new SystemOneError('timeout', 'no answer within 30 s')), { status: 502, code: 'judge_timeout', detail: 'the judge could not answer (timeout): no answer within 30 s' });
  assert.is(answer(new RunAlreadyRunningError({ id: 'r1', repo: 'switchboard', started_at: '2026-01-01T00:00:00Z' } as never))?.code, 'index_run_running');
});

test('the platform alone knows none of a surface\'s codes or errors', () => {
  const platformOnly = new ErrorCatalogue();
  assert.is(answer(new InvalidDocumentError('x'), platformOnly), undefined);
  assert.is(answer(new ContainerControlError('not_found', 'x'), platformOnly), undefined);
  assert.is(answer(faxErrors.error('fax_job_not_found', { id: 'x' }), platformOnly), undefined);
  assert.is(platformOnly.has('fax_job_not_found'), false);
});

test('unknown errors are left to the 500 path; a code declared twice is refused', () => {
  assert.is(answer(new Error('boom')), undefined);
  assert.is(answer('a string'), undefined);
  assert.is(answer(new DomainError('no_such_code', 'x')), undefined);
  const again = httpErrorMapping(errorVocabulary('copy', { fax_job_not_found: defineError('a copy', () => 'x') }), { fax_job_not_found: 404 });
  assert.throws(() => new ErrorCatalogue([PLATFORM_HTTP_ERRORS, FAX_HTTP_ERRORS, again]), /"fax_job_not_found" of copy is declared by fax already/);
  for (const kind of ['not_found', 'ambiguous', 'confirmation_required', 'ownership_changed', 'engine_unreachable', 'action_failed'] as const) {
    assert.ok(catalogue.has(catalogue.toHttp(new ContainerControlError(kind, 'x'))!.code), kind);
  }
});

test.run();
