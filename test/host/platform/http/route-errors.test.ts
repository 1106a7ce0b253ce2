import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { z } from 'zod';
import { HttpApi, type RouteSpec } from '../../../../host/platform/http/api.js';
import { createExpressApp } from '../../../../host/platform/http/app.js';
import { createLogger } from '../../../../host/platform/logging/logger.js';
import { platformErrors } from '../../../../host/platform/errors/platform-errors.js';
import { faxErrors } from '../../../../host/surfaces/fax/fax-errors.js';
import { FAX_HTTP_ERRORS } from '../../../../host/surfaces/fax/http/fax-http-errors.js';

// Routes of our DSL that name their error codes, served for real: what /openapi.json says of them.

type Spec = RouteSpec<z.ZodType, z.ZodType, z.ZodType>;
const ok = { 200: { description: 'ok' } };
const base = { tags: ['t'], access: { scope: 'things:write' }, responses: ok } as const;
const declare = (api: HttpApi, spec: Partial<Spec> & Pick<Spec, 'method' | 'path'>) => api.route({ summary: 'A route', ...base, ...spec } as Spec, () => ({}));
/** How the catalogue describes a code at each of its statuses. */
const line = (meaning: string, code: string) => `${meaning.replace(/\.$/, '')} (\`${code}\`)`;

async function served(api: HttpApi): Promise<{ paths: Record<string, Record<string, { responses: Record<string, { description: string; content?: Record<string, { schema: unknown }> }> }>> }> {
  const app = createExpressApp(api, { logger: createLogger('silent'), metrics: new Registry(), version: '1.0.0' });
  const server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/openapi.json`);
    assert.is(res.status, 200);
    return (await res.json()) as never;
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

test('a route naming a code documents its status with the code\'s meaning; codes of one status are joined', async () => {
  const api = new HttpApi();
  declare(api, { method: 'post', path: '/keys/:id/rotate', params: z.object({ id: z.string() }), errors: ['api_key_not_found', 'api_key_revoked', 'registry_busy'] });
  const responses = (await served(api)).paths['/keys/{id}/rotate']!.post!.responses;
  const { definitions } = platformErrors;
  // a code the route names replaces the placeholder 404 of a parameterised path
  assert.is(responses['404']!.description, line(definitions.api_key_not_found.meaning, 'api_key_not_found'));
  assert.is(responses['409']!.description, `${line(definitions.api_key_revoked.meaning, 'api_key_revoked')}; ${line(definitions.registry_busy.meaning, 'registry_busy')}`);
  assert.ok(responses['409']!.content?.['application/json'], 'an error answer carries the ErrorBody');
});

test("a named code's status that a default documents too is answered beside it: both are said", async () => {
  const api = new HttpApi();
  declare(api, { method: 'post', path: '/restart', errors: ['restart_not_allowed'] });
  const forbidden = (await served(api)).paths['/restart']!.post!.responses['403']!.description;
  assert.match(forbidden, /lacks scope `things:write` \(`insufficient_scope`\)/);
  assert.match(forbidden, /`cross_site_request`/);
  assert.ok(forbidden.endsWith(`; ${line(platformErrors.definitions.restart_not_allowed.meaning, 'restart_not_allowed')}`), forbidden);
});

test('a code with several statuses documents each of them', async () => {
  const api = new HttpApi();
  api.errors.add(FAX_HTTP_ERRORS);
  declare(api, { method: 'post', path: '/hook', access: 'public', rawBody: { contentType: 'application/json' }, errors: ['webhook_rejected'] } as Partial<Spec> & Pick<Spec, 'method' | 'path'>);
  const responses = (await served(api)).paths['/hook']!.post!.responses;
  const rejected = line(faxErrors.definitions.webhook_rejected.meaning, 'webhook_rejected');
  for (const status of ['400', '401', '403', '404', '409', '413', '422', '503']) assert.ok(responses[status]?.description.includes(rejected), `${status}: ${responses[status]?.description}`);
});

test('a code no vocabulary declares throws at registration; a surface code needs its surface\'s mapping in the catalogue', () => {
  assert.throws(() => declare(new HttpApi(), { method: 'get', path: '/typo', errors: ['api_key_not_fuond'] }), /GET \/typo names the error code "api_key_not_fuond", which no error vocabulary declares/);
  const api = new HttpApi();
  assert.throws(() => declare(api, { method: 'get', path: '/fax-job', errors: ['fax_job_not_found'] }), /"fax_job_not_found"/);
  api.errors.add(FAX_HTTP_ERRORS);
  declare(api, { method: 'get', path: '/fax-job', errors: ['fax_job_not_found'] });
});

test("validation_error is not named: its status is the route's, and a raw body's bodyErrorStatus documents it", async () => {
  assert.throws(() => declare(new HttpApi(), { method: 'post', path: '/v', body: z.object({}), errors: ['validation_error'] }), /bodyErrorStatus, queryErrorStatus/);
  const api = new HttpApi();
  declare(api, { method: 'post', path: '/upload', rawBody: { contentType: 'multipart/form-data' }, bodyErrorStatus: 400 } as Partial<Spec> & Pick<Spec, 'method' | 'path'>);
  declare(api, { method: 'post', path: '/raw', rawBody: { contentType: 'application/octet-stream' } } as Partial<Spec> & Pick<Spec, 'method' | 'path'>);
  const { paths } = await served(api);
  assert.match(paths['/upload']!.post!.responses['400']!.description, /`validation_error`/);
  assert.is(paths['/upload']!.post!.responses['422'], undefined);
  assert.is(paths['/raw']!.post!.responses['400'], undefined, 'no validation is documented that the route did not declare');
});

test("a status documented by hand keeps its text; one given only a schema takes its codes' text", async () => {
  const api = new HttpApi();
  const Refusal = z.object({ detail: z.string(), code: z.string(), diagnostics: z.array(z.string()) });
  declare(api, {
    method: 'post',
    path: '/install',
    errors: ['plugin_builtin', 'manifest_invalid'],
    responses: { 201: { description: 'Installed' }, 409: { description: 'Said by hand' }, 422: { schema: Refusal } },
  });
  const responses = (await served(api)).paths['/install']!.post!.responses;
  assert.is(responses['409']!.description, 'Said by hand');
  assert.is(responses['422']!.description, line(platformErrors.definitions.manifest_invalid.meaning, 'manifest_invalid'));
  assert.ok(JSON.stringify(responses['422']!.content).includes('diagnostics'), 'the route\'s own schema');
  assert.throws(() => declare(new HttpApi(), { method: 'get', path: '/mute', responses: { 200: { description: 'ok' }, 410: {} } }), /GET \/mute documents 410 without a description/);
});

test.run();
