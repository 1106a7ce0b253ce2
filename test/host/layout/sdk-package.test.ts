import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ROOT } from '../../support/gateway.js';
import { importsOf, sourcesUnder } from '../../support/source-code.js';

// The SDK package (packages/sdk, @switchboard/sdk) is built from core/ and released with the
// host: same version, the same entry points as the host's `switchboard/sdk*` exports, and every
// package core/ imports declared at the host's range, so an author's install resolves what the
// host runs.
type Exports = Record<string, { types: string; default: string } | string>;
const read = (file: string) => JSON.parse(readFileSync(path.join(ROOT, file), 'utf8'));
const host = read('package.json') as { version: string; exports: Exports; dependencies: Record<string, string>; optionalDependencies?: Record<string, string>; workspaces: string[] };
const sdk = read('packages/sdk/package.json') as { name: string; version: string; exports: Exports; dependencies: Record<string, string> };

test('the SDK package is a workspace of the host, at the host\'s version', () => {
  assert.is(sdk.name, '@switchboard/sdk');
  assert.ok(host.workspaces.includes('packages/sdk'));
  assert.is(sdk.version, host.version);
});

test('its entry points are the host\'s switchboard/sdk exports, subpath for subpath', () => {
  const fromHost = Object.fromEntries(Object.entries(host.exports).filter(([key]) => key.startsWith('./sdk')).map(([key, value]) => [key.replace(/^\.\/sdk/, '.'), value]));
  const fromSdk = Object.fromEntries(Object.entries(sdk.exports).filter(([key]) => key !== './package.json'));
  assert.equal(fromSdk, fromHost);
});

test('every package core/ imports is a dependency of the SDK package at the host\'s range', () => {
  const packages = new Set<string>();
  for (const file of sourcesUnder(path.join(ROOT, 'core'))) {
    for (const spec of importsOf(path.relative(ROOT, file), readFileSync(file, 'utf8'))) {
      if (spec.startsWith('node:') || spec.startsWith('core/') || spec.startsWith('.')) continue;
      packages.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
    }
  }
  assert.ok(packages.has('zod') && packages.has('pino'), [...packages].join(', '));
  const wanted = Object.fromEntries([...packages].sort().map((name) => [name, host.dependencies[name] ?? host.optionalDependencies?.[name]]));
  assert.equal(sdk.dependencies, wanted);
});

test.run();
