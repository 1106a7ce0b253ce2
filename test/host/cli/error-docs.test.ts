import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gatewayErrorCatalogue, renderErrorTable, withErrorTable, ERRORS_START, ERRORS_END } from '../../../host/cli/error-docs.js';
import { httpError, httpErrorWithStatus, invalid } from '../../../host/platform/http/error-catalogue.js';

// dist/test/host/cli/ -> the project root, where docs/ lives (docs are not compiled).
const docsFile = fileURLToPath(new URL('../../../../docs/platform/errors.md', import.meta.url));

test('the table has one row per catalogued code with its statuses', () => {
  const rows = renderErrorTable().trim().split('\n').slice(2);
  const codes = gatewayErrorCatalogue().rows().map((row) => row.code);
  assert.is(rows.length, codes.length);
  for (const [i, code] of codes.entries()) assert.ok(rows[i]?.startsWith(`| \`${code}\` |`), code);
  assert.match(renderErrorTable(), /\| `validation_error` \| 422, 400 \| platform \|/);
  assert.match(renderErrorTable(), /\| `fax_job_not_found` \| 404 \| fax \|/);
  assert.match(renderErrorTable(), /\| `index_run_running` \| 409 \| search \|/);
  assert.match(renderErrorTable(), /\| `alert_target_not_found` \| 404 \| workbench \|/);
});

test('docs/platform/errors.md holds exactly the table the catalogue produces', () => {
  const doc = readFileSync(docsFile, 'utf8');
  const start = doc.indexOf(ERRORS_START);
  const end = doc.indexOf(ERRORS_END);
  assert.ok(start >= 0 && end > start, 'docs/platform/errors.md has the table markers');
  assert.fixture(doc.slice(start + ERRORS_START.length, end), `\n${renderErrorTable()}`, 'docs drifted from the catalogue: run `node dist/host/cli/error-docs.js --write docs/platform/errors.md`');
  assert.is(withErrorTable(doc), doc);
});

test('httpError takes status and wording of a platform code from the catalogue', () => {
  const err = httpError('api_key_not_found');
  assert.is(err.status, 404);
  assert.is(err.code, 'api_key_not_found');
  assert.is(err.detail, 'API key not found');
  assert.is(httpError('rate_limited', { limit: 5 }).withHeaders({ 'Retry-After': '7' }).headers['Retry-After'], '7');
});

test('a chosen status is honoured only where the catalogue allows it', () => {
  assert.is(invalid('to', 'required', 400).status, 400);
  assert.is(invalid('to', 'required').detail, 'to: required');
  assert.is(httpErrorWithStatus('malformed_request', 408, { reason: 'too slow' }).status, 408);
  // route_not_found lists no alternatives: the documented 404 stands
  assert.is(httpErrorWithStatus('route_not_found', 500, { method: 'GET', path: '/x' }).status, 404);
});

test.run();
