import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parse } from 'yaml';
import { ROOT } from '../../support/gateway.js';

/**
 * The deployment files read as an engine would: the Containerfile's final stage and
 * deploy/compose.yaml with its anchors merged. No image is built here (registries are not
 * reachable from the test machine); docs/operations/scale.md says so.
 */
const containerfile = readFileSync(path.join(ROOT, 'Containerfile'), 'utf8');
const compose = parse(readFileSync(path.join(ROOT, 'deploy/compose.yaml'), 'utf8'), { merge: true }) as { services: Record<string, any>; volumes: Record<string, unknown> };
const nginx = readFileSync(path.join(ROOT, 'deploy/nginx.conf'), 'utf8');

/** The instructions of the last stage, continuation lines joined. */
function finalStage(text: string): Array<[string, string]> {
  const lines = text.replace(/\\\n\s*/g, ' ').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  const stages = lines.reduce<string[][]>((acc, line) => (/^FROM\s/i.test(line) ? [...acc, [line]] : (acc.at(-1)?.push(line), acc)), []);
  return stages.at(-1)!.map((l) => [l.split(/\s+/)[0]!.toUpperCase(), l.slice(l.indexOf(' ') + 1)]);
}

test('Containerfile: a pinned Node 20 base, a non-root user, DATA_DIR as a volume, a health check on /health', () => {
  const stage = finalStage(containerfile);
  const last = (op: string) => stage.filter(([o]) => o === op).at(-1)?.[1];
  assert.match(last('FROM')!, /^docker\.io\/library\/node:20-bookworm-slim$/);
  const user = last('USER')!;
  assert.ok(user && !/^(0|root)(:|$)/.test(user), `runs as ${user}`);
  assert.match(last('VOLUME')!, /"\/data"/);
  assert.match(stage.find(([o, a]) => o === 'ENV' && /DATA_DIR=\/data/.test(a))?.[1] ?? '', /DATA_DIR=\/data/);
  assert.match(last('HEALTHCHECK')!, /\/health/);
  assert.match(last('CMD')!, /dist\/host\/main\.js/);
  // USER comes after every RUN: nothing later runs as root
  const userAt = stage.findIndex(([o]) => o === 'USER');
  assert.ok(stage.slice(userAt).every(([o]) => o !== 'RUN'));
});

test('compose: three gateways, PostgreSQL, an S3 store, a load balancer; every long-running service has a health check', () => {
  const names = Object.keys(compose.services);
  for (const name of ['gateway1', 'gateway2', 'gateway3', 'postgres', 'minio', 'lb']) assert.ok(names.includes(name), `service ${name}`);
  for (const [name, service] of Object.entries(compose.services)) {
    if (name === 'bucket') continue; // runs once and exits
    assert.ok(service.healthcheck?.test, `${name} has a health check`);
  }
});

test('compose: each gateway is non-root with a read-only root, its own DATA_DIR volume, and the shared PostgreSQL and bucket', () => {
  const volumes = new Set<string>();
  for (const name of ['gateway1', 'gateway2', 'gateway3']) {
    const g = compose.services[name];
    assert.is(g.read_only, true, `${name} read-only`);
    assert.ok(g.user && !/^(0|root)(:|$)/.test(String(g.user)), `${name} user`);
    assert.ok(g.tmpfs?.includes('/tmp'));
    const data = (g.volumes as string[]).find((v) => v.endsWith(':/data'));
    assert.ok(data, `${name} mounts a volume at /data`);
    volumes.add(data!.split(':')[0]!);
    assert.ok(data!.split(':')[0]! in compose.volumes, `${name}'s volume is declared`);
    assert.is(g.environment.DATA_DIR, '/data');
    assert.match(g.environment.DATABASE_URL, /^postgres:\/\/.*@postgres:5432\//);
    assert.is(g.environment.STORAGE_BACKEND, 'storage-s3');
    assert.match(g.environment.S3_ENDPOINT_URL, /^http:\/\/minio:9000$/);
    assert.match(String(g.healthcheck.test), /\/health/);
    assert.is(g.depends_on.postgres.condition, 'service_healthy');
  }
  assert.is(volumes.size, 3, 'one DATA_DIR volume per gateway, never shared');
});

test('the load balancer spreads over the three gateways and never retries a POST on another', () => {
  for (const n of [1, 2, 3]) assert.match(nginx, new RegExp(`server gateway${n}:8080`));
  assert.match(nginx, /proxy_next_upstream error timeout;/);
  assert.not.match(nginx, /non_idempotent/);
  const lb = compose.services.lb;
  assert.ok((lb.volumes as string[]).some((v) => v.startsWith('./nginx.conf:')));
  for (const n of [1, 2, 3]) assert.is(lb.depends_on[`gateway${n}`].condition, 'service_healthy');
});

test.run();
