import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DomainErrors, domainErrorToHttp } from '../../../../host/platform/http/domain-errors.js';
import { faxErrorToHttp } from '../../../../host/surfaces/fax/fax-errors.js';
import { searchErrorToHttp } from '../../../../host/surfaces/search/search-errors.js';
import { workbenchErrorToHttp } from '../../../../host/surfaces/workbench/workbench-errors.js';
import { RunAlreadyRunningError } from '../../../../host/surfaces/search/indexing/index-run-store.js';
import { PluginNotAvailableError, SettingsValidationError } from '../../../../core/kernel/kernel.js';
import { StorageNotFoundError, WebhookRejectedError } from '../../../../core/sdk/index.js';
import { SystemOneError } from '../../../../core/sdk/judge/index.js';
import { ConfigFileUnreadableError, ConfigValidationError } from '../../../../host/platform/config/registry.js';
import { InvalidDocumentError, UnsupportedDocumentError } from '../../../../host/surfaces/fax/documents/errors.js';
import { ContainerControlError } from '../../../../host/surfaces/workbench/containers/container-controls.js';
import { ERROR_CATALOGUE } from '../../../../host/platform/http/error-catalogue.js';

// The gateway's mapping: the platform's own errors, then each surface's mapper.
const errors = new DomainErrors();
errors.add(faxErrorToHttp);
errors.add(searchErrorToHttp);
errors.add(workbenchErrorToHttp);
const answer = (err: unknown) => {
  const http = errors.toHttp(err);
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
});

test('documents, storage, webhooks, containers and judges map to their catalogued codes', () => {
  assert.is(answer(new InvalidDocumentError('encrypted PDF'))?.status, 400);
  assert.is(answer(new UnsupportedDocumentError('a ZIP archive'))?.status, 415);
  assert.equal(answer(new StorageNotFoundError('fax/x/document.pdf')), { status: 404, code: 'document_expired', detail: 'document expired' });
  assert.equal(answer(new WebhookRejectedError(403, 'token', 'invalid token')), { status: 403, code: 'webhook_rejected', detail: 'invalid token' });
  assert.equal(answer(new ContainerControlError('confirmation_required', 'type the service name')), { status: 409, code: 'confirmation_required', detail: 'type the service name' });
  assert.is(answer(new ContainerControlError('engine_unreachable', 'no engine'))?.status, 503);
  assert.equal(answer(new SystemOneError('timeout', 'no answer within 30 s')), { status: 502, code: 'judge_timeout', detail: 'the judge could not answer (timeout): no answer within 30 s' });
});

test('each surface maps only its own errors; the platform mapper knows none of theirs', () => {
  assert.is(domainErrorToHttp(new InvalidDocumentError('x')), undefined);
  assert.is(domainErrorToHttp(new ContainerControlError('not_found', 'x')), undefined);
  assert.is(faxErrorToHttp(new ContainerControlError('not_found', 'x')), undefined);
  assert.is(workbenchErrorToHttp(new InvalidDocumentError('x')), undefined);
  assert.is(answer(new RunAlreadyRunningError({ id: 'r1', repo: 'switchboard', started_at: '2026-01-01T00:00:00Z' } as never))?.code, 'index_run_running');
  assert.is(searchErrorToHttp(new InvalidDocumentError('x')), undefined);
});

test('every mapped code is in the catalogue; unknown errors are left to the 500 path', () => {
  assert.is(answer(new Error('boom')), undefined);
  assert.is(answer('a string'), undefined);
  for (const kind of ['not_found', 'ambiguous', 'confirmation_required', 'ownership_changed', 'engine_unreachable', 'action_failed'] as const) {
    const code = errors.toHttp(new ContainerControlError(kind, 'x'))!.code;
    assert.ok(code in ERROR_CATALOGUE, code);
  }
});

test.run();
