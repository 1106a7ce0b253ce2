import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as sdk from 'switchboard/sdk';
import * as fax from 'switchboard/sdk/fax';

// dist/test/core/sdk/fax -> the package root
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../..');
const guide = readFileSync(path.join(root, 'docs/sdk-guide.md'), 'utf8');
const faxSection = guide.slice(guide.indexOf('## Fax providers: `switchboard/sdk/fax`'));

test('every runtime export of switchboard/sdk/fax is documented in the SDK guide', () => {
  assert.ok(faxSection.length < guide.length, 'the guide has a switchboard/sdk/fax section');
  const missing = Object.keys(fax).filter((name) => !faxSection.includes(`\`${name}`) && !faxSection.includes(`${name}(`) && !faxSection.includes(` ${name}`));
  assert.equal(missing, []);
});

test('the surface every kind imports carries no fax helpers', () => {
  const shared = Object.keys(fax).filter((name) => name in sdk);
  assert.equal(shared, []);
});

test.run();
