import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Server } from 'node:http';
import { mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { startGateway, json, tempDir, type TestGateway } from '../../../../support/gateway.js';
import { startPodman, createContainer, type PodmanEngine } from '../../../../support/podman.js';

const PROJECT = 'sbtest';
const managed = (service: string, project = PROJECT) => ({
  'com.docker.compose.project': project,
  'com.docker.compose.service': service,
  [`io.${project}.managed`]: 'true',
});

let engine: PodmanEngine;
let gw: TestGateway;
const ids: Record<string, string> = {};

test.before(async () => {
  engine = await startPodman();
  const { docker } = engine;
  ids.postgres = await createContainer(docker, { name: 'sbtest-postgres', labels: managed('postgres') });
  ids.caddy = await createContainer(docker, {
    name: 'sbtest-caddy',
    labels: managed('caddy'),
    cmd: ['sh', '-c', 'for i in 1 2 3 4 5; do echo line$i; done; echo oops >&2; exec sleep 3600'],
  });
  ids.worker = await createContainer(docker, { name: 'sbtest-worker', labels: managed('worker'), start: false });
  ids.neo4jA = await createContainer(docker, { name: 'sbtest-neo4j-1', labels: managed('neo4j') });
  ids.neo4jB = await createContainer(docker, { name: 'sbtest-neo4j-2', labels: managed('neo4j') });
  // Never visible: no ownership label, another project, a service off the allowlist.
  ids.unlabelled = await createContainer(docker, {
    name: 'sbtest-postgres-copy',
    labels: { 'com.docker.compose.project': PROJECT, 'com.docker.compose.service': 'postgres' },
  });
  ids.other = await createContainer(docker, { name: 'other-postgres', labels: managed('postgres', 'other') });
  ids.hidden = await createContainer(docker, { name: 'sbtest-hidden', labels: managed('hidden') });
  gw = await startGateway({
    DOCKER_HOST: engine.dockerHost,
    DOCKER__PROJECT: PROJECT,
    DOCKER__SERVICES: 'postgres,caddy,worker,neo4j,qdrant,api',
    DOCKER__CORE_SERVICES: 'postgres,caddy,neo4j,qdrant',
    DOCKER__OPTIONAL_SERVICES: 'api',
    DOCKER__TIMEOUT_S: '2',
    AUDIT_LOG_ENABLED: 'true',
  });
  gw.env.AUDIT_LOG_FILE = path.join(gw.dataDir, 'audit.log');
  gw.gateway.config.reload();
});

test.after(async () => {
  await gw?.close();
  await engine?.stop();
});

const post = (p: string, body?: unknown) =>
  fetch(`${gw.url}${p}`, {
    method: 'POST',
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });

async function running(id: string): Promise<boolean> {
  return Boolean((await engine.docker.getContainer(id).inspect()).State.Running);
}

test('status: the engine answers, its runtime and the managed containers of the project are counted', async () => {
  const res = await fetch(`${gw.url}/api/docker/status`);
  assert.is(res.status, 200);
  const body = await json(res);
  assert.is(body.running, true);
  assert.match(body.runtime, /podman/i);
  assert.is(body.project_name, PROJECT);
  assert.is(body.containers_count, 5, 'postgres, caddy, worker and two neo4j; no unlabelled, foreign or hidden container');
});

test('services: allowlisted services with their state; missing and optional read as such; nothing else is visible', async () => {
  const body = await json(await fetch(`${gw.url}/api/docker/services`));
  const by = Object.fromEntries(body.services.map((s: any) => [s.service, s]));
  assert.equal(Object.keys(by), ['postgres', 'caddy', 'worker', 'neo4j', 'qdrant', 'api']);
  assert.is(by.postgres.state, 'running');
  assert.is(by.postgres.core, true);
  assert.equal(by.postgres.containers.map((c: any) => c.id), [ids.postgres]);
  assert.ok(['created', 'configured', 'exited'].includes(by.worker.state), by.worker.state);
  assert.is(by.neo4j.state, 'ambiguous');
  assert.is(by.qdrant.state, 'missing');
  assert.is(by.api.state, 'optional, not deployed');
  const shown = JSON.stringify(body);
  for (const hidden of [ids.unlabelled, ids.other, ids.hidden]) assert.not.ok(shown.includes(hidden!), 'a container outside the rules never appears');
});

test('a core service stops only with its key typed out; start needs nothing; the engine really stops it', async () => {
  let res = await post('/api/docker/services/postgres/stop');
  assert.is(res.status, 409);
  assert.match((await json(res)).detail, /"confirm": "postgres"/);
  res = await post('/api/docker/services/postgres/stop', { confirm: true });
  assert.is(res.status, 409, 'true is not enough for a core service');
  assert.ok(await running(ids.postgres!), 'nothing was done while refused');

  res = await post('/api/docker/services/postgres/stop', { confirm: 'postgres' });
  assert.is(res.status, 200);
  const stopped = await json(res);
  assert.equal({ success: stopped.success, service: stopped.service, action: stopped.action }, { success: true, service: 'postgres', action: 'stop' });
  assert.not.ok(await running(ids.postgres!), 'the container is stopped on the engine');

  res = await post('/api/docker/services/postgres/start');
  assert.is(res.status, 200);
  assert.is((await json(res)).state, 'running');
  assert.ok(await running(ids.postgres!));
});

test('another service needs {"confirm": true} to stop or restart', async () => {
  let res = await post('/api/docker/services/worker/start');
  assert.is(res.status, 200);
  assert.ok(await running(ids.worker!));
  res = await post('/api/docker/services/worker/restart', {});
  assert.is(res.status, 409);
  assert.match((await json(res)).detail, /"confirm": true/);
  const before = (await engine.docker.getContainer(ids.worker!).inspect()).State.StartedAt;
  res = await post('/api/docker/services/worker/restart', { confirm: true });
  assert.is(res.status, 200);
  const after = (await engine.docker.getContainer(ids.worker!).inspect()).State.StartedAt;
  assert.is.not(after, before, 'the container was started again');
  res = await post('/api/docker/services/worker/stop', { confirm: true });
  assert.is(res.status, 200);
  assert.not.ok(await running(ids.worker!));
});

test('two managed containers for one service: 409, and neither is touched', async () => {
  const res = await post('/api/docker/services/neo4j/stop', { confirm: 'neo4j' });
  assert.is(res.status, 409);
  assert.match((await json(res)).detail, /2 managed containers/);
  assert.ok(await running(ids.neo4jA!));
  assert.ok(await running(ids.neo4jB!));
  assert.is((await fetch(`${gw.url}/api/docker/services/neo4j/logs`)).status, 409);
});

test('not created, not allowlisted, foreign or unlabelled: 404 with a message; bad names and actions 400', async () => {
  for (const service of ['qdrant', 'hidden', 'nosuch', 'api']) {
    const res = await post(`/api/docker/services/${service}/start`);
    assert.is(res.status, 404, service);
    assert.match((await json(res)).detail, /not in project "sbtest" or the stack is not up/);
  }
  assert.ok(await running(ids.hidden!), 'a service off the allowlist is never acted on');
  assert.is((await post('/api/docker/services/postgres/kill')).status, 400);
  assert.is((await post('/api/docker/services/..%2Fetc/start')).status, 400);
  assert.is((await post('/api/docker/services/postgres/stop', { confirm: 'postgres', extra: 1 })).status, 422);
});

test('logs come back from the engine, stdout and stderr, honouring tail; tail is bounded', async () => {
  let body = await json(await fetch(`${gw.url}/api/docker/services/caddy/logs`));
  assert.is(body.tail, 100);
  for (const line of ['line1', 'line5', 'oops']) assert.ok(body.logs.includes(line), line);
  body = await json(await fetch(`${gw.url}/api/docker/services/caddy/logs?tail=2`));
  const lines = body.logs.trim().split('\n');
  assert.is(lines.length, 2);
  assert.not.ok(body.logs.includes('line1'));
  for (const bad of ['0', '1001', 'abc', '2.5']) assert.is((await fetch(`${gw.url}/api/docker/services/caddy/logs?tail=${bad}`)).status, 400, bad);
});

test('every action is audited with who, service, action and result', async () => {
  const audit = readFileSync(path.join(gw.dataDir, 'audit.log'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const actions = audit.filter((r) => r.event === 'container_action');
  assert.ok(actions.some((r) => r.service === 'postgres' && r.action === 'stop' && r.result === 'ok' && r.by));
  assert.ok(actions.some((r) => r.service === 'postgres' && r.action === 'stop' && r.result === 'refused'));
  assert.ok(actions.some((r) => r.service === 'neo4j' && r.result === 'refused'));
});

test('a remote DOCKER_HOST is refused with 403 and no engine unreachable answers 503', async () => {
  gw.env.DOCKER_HOST = 'tcp://127.0.0.1:2375';
  gw.gateway.config.reload();
  try {
    for (const p of ['/api/docker/status', '/api/docker/services', '/api/docker/services/caddy/logs']) {
      const res = await fetch(`${gw.url}${p}`);
      assert.is(res.status, 403, p);
      assert.match((await json(res)).detail, /remote engine/);
    }
    assert.is((await post('/api/docker/services/worker/start')).status, 403);
    gw.env.DOCKER_HOST = `unix://${path.join(gw.dataDir, 'no-engine.sock')}`;
    gw.gateway.config.reload();
    const status = await json(await fetch(`${gw.url}/api/docker/status`));
    assert.is(status.running, false);
    assert.is((await fetch(`${gw.url}/api/docker/services`)).status, 503);
  } finally {
    gw.env.DOCKER_HOST = engine.dockerHost;
    gw.gateway.config.reload();
  }
  assert.is((await fetch(`${gw.url}/api/docker/status`)).status, 200);
});

test('dev status: dev server, then built bundle with its mtime, then absent', async () => {
  const dev: Server = createServer((_req, res) => res.end('vite'));
  await new Promise<void>((resolve) => dev.listen(0, '127.0.0.1', resolve));
  const port = (dev.address() as { port: number }).port;
  const dist = tempDir();
  gw.env.FRONTEND_DEV_URL = `http://127.0.0.1:${port}`;
  gw.env.WEB_DIST_DIR = dist;
  gw.gateway.config.reload();
  try {
    let body = await json(await fetch(`${gw.url}/api/dev/status`));
    assert.is(body.backend.running, true);
    assert.is(body.backend.pid, process.pid);
    assert.is(body.frontend.frontend_mode, 'dev_server');
    await new Promise<void>((resolve) => dev.close(() => resolve()));
    body = await json(await fetch(`${gw.url}/api/dev/status`));
    assert.is(body.frontend.frontend_mode, 'absent');
    assert.is(body.frontend.frontend_bundle_built_at, null);
    writeFileSync(path.join(dist, 'index.html'), '<html></html>');
    const when = new Date('2026-01-02T03:04:05.000Z');
    utimesSync(path.join(dist, 'index.html'), when, when);
    body = await json(await fetch(`${gw.url}/api/dev/status`));
    assert.is(body.frontend.frontend_mode, 'built_bundle');
    assert.is(body.frontend.frontend_bundle_built_at, when.toISOString());
  } finally {
    rmSync(dist, { recursive: true, force: true });
  }
});

test.run();
