import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MANIFEST_DIAGNOSTICS, parseManifestText } from '../../../core/manifest/index.js';
import { HOST } from './fixtures.js';

// dist/test/core/manifest -> the package root
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
const reference = readFileSync(path.join(root, 'docs/manifest-reference.md'), 'utf8');

test('every diagnostic code is documented, with its severity, in the manifest reference', () => {
  const missing = Object.entries(MANIFEST_DIAGNOSTICS)
    .filter(([code, { severity }]) => !reference.includes(`| \`${code}\` | ${severity} | `))
    .map(([code]) => code);
  assert.equal(missing, []);
});

test('the complete example of the reference is a valid manifest', () => {
  const example = /## A complete example\s+```json\n([\s\S]*?)\n```/.exec(reference)?.[1];
  assert.ok(example, 'the reference has a complete example');
  const result = parseManifestText(example!, HOST);
  assert.equal(result.diagnostics, []);
  assert.is(result.manifest?.id, 'acme-fax');
});

test.run();
