import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { json, ROOT, startGateway, tempDir, type TestGateway } from '../../../support/gateway.js';

const run = promisify(execFile);
let gw: TestGateway;
let doc: any;

test.before(async () => {
  gw = await startGateway();
  doc = await json(await fetch(`${gw.url}/openapi.json`));
});
test.after(async () => {
  await gw.close();
});

// readiness probes answer 503 with their full report, not an error body
const REPORTS = new Set(['GET /health/ready 503', 'GET /api/ready 503']);

const operations = () =>
  Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([p, ops]) => Object.entries(ops).map(([method, op]) => ({ name: `${method.toUpperCase()} ${p}`, op })));

test('redocly lint (recommended rules, redocly.yaml) finds no error and no warning', async () => {
  const file = path.join(tempDir('openapi-lint-'), 'openapi.json');
  writeFileSync(file, JSON.stringify(doc));
  const cli = path.join(ROOT, 'node_modules/@redocly/cli/bin/cli.js');
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
  // lint exits non-zero on errors; the JSON report is on stdout either way
  const out = await run(process.execPath, [cli, 'lint', '--config', path.join(ROOT, 'redocly.yaml'), '--format=json', file], { env, maxBuffer: 32 * 1024 * 1024 }).catch((err) => err);
  const report = JSON.parse(out.stdout);
  const problems = report.problems.map((p: any) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location?.[0]?.pointer}`);
  assert.equal(problems, []);
  assert.equal(report.totals, { errors: 0, warnings: 0, ignored: 0 });
});

// Pairs of one shape that no request can match both: the issue names GET /fax/batches/{id}, and a
// job id is a UUID, never "batches" (the batch route is registered first all the same).
const SHAPES_APART = new Set(['/fax/batches/{id} ~ /fax/{id}/pdf', '/fax/batches/{id} ~ /fax/{id}/report']);

test('no request matches two operations: paths of one shape share no method', () => {
  const segments = (p: string) => p.split('/').filter(Boolean);
  const param = (s: string) => s.startsWith('{');
  const entries = Object.entries(doc.paths as Record<string, Record<string, unknown>>);
  const clashes: string[] = [];
  for (const [i, [a, opsA]] of entries.entries()) {
    for (const [b, opsB] of entries.slice(i + 1)) {
      const sa = segments(a);
      const sb = segments(b);
      if (sa.length !== sb.length || !sa.every((x, k) => x === sb[k] || param(x) || param(sb[k]!))) continue;
      // A concrete path is matched before a templated one (OpenAPI); ambiguous are two paths each
      // concrete where the other is templated, and then only for a method both answer.
      const aMoreConcrete = sa.some((x, k) => !param(x) && param(sb[k]!));
      const bMoreConcrete = sb.some((x, k) => !param(x) && param(sa[k]!));
      if (!(aMoreConcrete && bMoreConcrete)) continue;
      const shared = Object.keys(opsA).filter((m) => m in opsB && m !== 'parameters');
      if (shared.length && !SHAPES_APART.has(`${a} ~ ${b}`)) clashes.push(`${shared.join(',')} ${a} ~ ${b}`);
    }
  }
  assert.equal(clashes, []);
});

test('every operation has a unique operationId', () => {
  const ids = operations().map(({ op }) => op.operationId);
  assert.ok(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z0-9]*$/.test(id)), 'camelCase ids');
  assert.is(new Set(ids).size, ids.length);
  assert.is(doc.paths['/plugins/{id}/config'].put.operationId, 'putPluginsByIdConfig');
});

test('every error answer is the ErrorBody component; keyed, parameterised and validated routes document 401/403/404/400/422', () => {
  assert.equal(Object.keys(doc.components.schemas.ErrorBody.properties).sort(), ['code', 'detail']);
  for (const { name, op } of operations()) {
    for (const [status, response] of Object.entries(op.responses as Record<string, any>)) {
      if (Number(status) < 400 || !response.content?.['application/json'] || REPORTS.has(`${name} ${status}`)) continue;
      const schema = response.content['application/json'].schema;
      // either the component itself, or the component extended (the registry's 422 adds diagnostics)
      const refs = schema.$ref ? [schema.$ref] : (schema.allOf ?? []).map((s: any) => s.$ref);
      assert.ok(refs.includes('#/components/schemas/ErrorBody'), `${name} ${status}: ${JSON.stringify(schema).slice(0, 120)}`);
    }
    const codes = Object.keys(op.responses);
    if (op.security?.length) assert.ok(codes.includes('401') && codes.includes('403'), `${name} documents 401 and 403`);
    if ((op.parameters ?? []).some((p: any) => p.in === 'path')) assert.ok(codes.includes('404'), `${name} documents 404`);
    if (op.requestBody?.content?.['application/json']) assert.ok(codes.includes('422') || codes.includes('400'), `${name} documents its validation answer`);
    if (op.security?.length || op.parameters?.length || op.requestBody) assert.ok(codes.some((c) => c.startsWith('4')), `${name} documents a 4xx`);
  }
});

test("a route's named error codes are described from the vocabulary, beside a default of the same status", () => {
  const invalid = doc.paths['/fax'].post.responses['400'].description;
  assert.match(invalid, /^A path parameter, query value or body field is invalid; `detail` names it \(`validation_error`\); /);
  for (const code of ['multipart_required', 'malformed_multipart', 'invalid_document']) assert.ok(invalid.includes(`(\`${code}\`)`), `${code} in: ${invalid}`);
  assert.is(doc.paths['/fax/{id}'].get.responses['404'].description, 'No fax job has this id (or, for a provider callback, none sent through this provider) (`fax_job_not_found`)');
});

test('POST /fax takes its documents as binary multipart parts (file pickers in /docs), one or several', () => {
  const schema = doc.paths['/fax'].post.requestBody.content['multipart/form-data'].schema;
  assert.is(schema.properties.file.type, 'array');
  assert.is(schema.properties.file.items.type, 'string');
  assert.is(schema.properties.file.items.format, 'binary');
});

test('every operation that takes a body documents 413, and 415 where it takes JSON', () => {
  const withBody = operations().filter(({ op }) => op.requestBody);
  // the fax upload, the webhooks and every JSON route: well over the nine documented before
  assert.ok(withBody.length > 20, `${withBody.length} operations take a body`);
  const missing = withBody.filter(({ op }) => !op.responses['413']).map(({ name }) => name);
  assert.equal(missing, [], 'operations with a body that do not document 413');
  // Provider webhooks (public) take the provider's body as it comes; the plugin reads it.
  const json = withBody.filter(({ op }) => Object.keys(op.requestBody.content).includes('application/json') && op['x-required-scope'] !== 'public');
  assert.equal(json.filter(({ op }) => !op.responses['415']).map(({ name }) => name), [], 'JSON operations that do not document 415');
});

test('every non-public operation documents 421, every state-changing one its cross-site 403', () => {
  for (const { name, op } of operations()) {
    if (op['x-required-scope'] !== 'public') assert.ok(op.responses['421'], `${name}: 421`);
    if (/^(POST|PUT|PATCH|DELETE) /.test(name)) assert.match(op.responses['403']?.description ?? '', /cross_site_request/, `${name}: 403`);
  }
});

test('errors on the wire carry a catalogued code', async () => {
  const missing = await json(await fetch(`${gw.url}/fax/00000000-0000-4000-8000-000000000000`));
  assert.equal(missing, { detail: 'fax job "00000000-0000-4000-8000-000000000000" not found', code: 'fax_job_not_found' });
  const route = await json(await fetch(`${gw.url}/no/such/route`));
  assert.is(route.code, 'route_not_found');
});

test.run();
