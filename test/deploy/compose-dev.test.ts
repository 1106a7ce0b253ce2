import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { DockerKeys } from '../../host/surfaces/workbench/containers/container-settings.js';
import { ROOT, json, startGateway } from '../support/gateway.js';
import { createContainer, startPodman } from '../support/podman.js';

// deploy/compose.dev.yaml is the stack the container controls manage out of the box: its project
// is docker.project, its services are exactly the docker.services allowlist, and every one
// carries the labels the controls require (docs/workbench/containers.md).

const file = path.join(ROOT, 'deploy/compose.dev.yaml');
const compose = parse(readFileSync(file, 'utf8'), { merge: true }) as {
  name: string;
  services: Record<string, { image?: string; labels?: Record<string, string>; profiles?: string[]; volumes?: string[]; network_mode?: string; ports?: string[] }>;
  volumes?: Record<string, unknown>;
};
const project = DockerKeys['docker.project'].parse(undefined);
const allowlist = DockerKeys['docker.services'].parse(undefined) as string[];
const core = DockerKeys['docker.core_services'].parse(undefined) as string[];
const optional = DockerKeys['docker.optional_services'].parse(undefined) as string[];

test('the compose project is the default docker.project', () => {
  assert.is(compose.name, project);
});

test('the services are exactly the default docker.services allowlist', () => {
  const services = Object.keys(compose.services);
  assert.equal(allowlist.filter((s) => !services.includes(s)), [], 'allowlisted services missing from the compose file');
  assert.equal(services.filter((s) => !allowlist.includes(s)), [], 'services the controls would never show');
});

test('every service carries the managed label of the project and a fully qualified image', () => {
  for (const [key, service] of Object.entries(compose.services)) {
    assert.is(service.labels?.[`io.${project}.managed`], 'true', `${key} is labelled io.${project}.managed=true`);
    // Fully qualified (registry host first): podman needs no short-name configuration to pull it.
    assert.match(service.image ?? '', /^[a-z0-9.-]+\.[a-z]+\/[a-z0-9._/-]+:[\w.-]+$/, `${key} names a fully qualified image with a tag`);
  }
});

test('only optional services sit behind a profile; core services start with the stack', () => {
  for (const [key, service] of Object.entries(compose.services)) {
    if (service.profiles?.length) assert.ok(optional.includes(key), `${key} has a profile but is not in docker.optional_services`);
  }
  for (const key of core) assert.not.ok(compose.services[key]?.profiles, `${key} is a core service`);
});

test('ports are published on loopback only, and mounted files and named volumes exist', () => {
  for (const [key, service] of Object.entries(compose.services)) {
    for (const port of service.ports ?? []) assert.match(port, /^127\.0\.0\.1:\d+:\d+$/, `${key} publishes ${port} on loopback`);
    for (const volume of service.volumes ?? []) {
      const source = volume.split(':')[0]!;
      if (source.startsWith('.')) assert.ok(existsSync(path.resolve(path.dirname(file), source)), `${key} mounts ${source}, which exists`);
      else assert.ok(compose.volumes && source in compose.volumes, `${key} uses the declared named volume ${source}`);
    }
  }
});

test('on podman, the stack as compose labels it is what the container page shows, with the default settings', async () => {
  // Compose labels each container with the project and its service key, adds the service's own
  // labels, and leaves out services behind a profile. Images are not pulled here: each service
  // runs as the tiny local image with exactly those labels.
  const engine = await startPodman();
  try {
    for (const [key, service] of Object.entries(compose.services)) {
      if (service.profiles?.length) continue;
      await createContainer(engine.docker, { name: `${compose.name}-${key}-1`, labels: { 'com.docker.compose.project': compose.name, 'com.docker.compose.service': key, ...service.labels } });
    }
    const gw = await startGateway({ DOCKER_HOST: engine.dockerHost });
    try {
      const res = await fetch(`${gw.url}/api/docker/services`);
      const body = await json(res);
      assert.is(res.status, 200, JSON.stringify(body));
      assert.is(body.project, project);
      const states = body.services.map((s: { service: string; state: string }) => [s.service, s.state]);
      assert.equal(
        states,
        allowlist.map((key) => [key, compose.services[key]!.profiles ? 'optional, not deployed' : 'running']),
      );
      assert.equal(states.filter(([, state]: [string, string]) => state !== 'running'), [['api', 'optional, not deployed']]);
    } finally {
      await gw.close();
    }
  } finally {
    await engine.stop();
  }
});

test.run();
