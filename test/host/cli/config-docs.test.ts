import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderConfigTable, withConfigTable, TABLE_START, TABLE_END } from '../../../host/cli/config-docs.js';
import { gatewayConfigModel } from '../../support/gateway-config.js';

const model = gatewayConfigModel();

// dist/test/host/cli/ -> the project root, where docs/ lives (docs are not compiled).
const docsFile = fileURLToPath(new URL('../../../../docs/platform/configuration.md', import.meta.url));

test('the table has one row per key, with its secret flag', () => {
  const table = renderConfigTable();
  const rows = table.trim().split('\n').slice(2);
  assert.is(rows.length, model.keys.length);
  for (const [i, key] of model.keys.entries()) {
    assert.ok(rows[i]?.startsWith(`| \`${key}\``), key);
    assert.match(rows[i] ?? '', model.secretKeys.has(key) ? /\| yes \|/ : /\| no \|/);
  }
  assert.match(table, /\| `FINAL_K` \| integer \(1\.\.1000\) \| `10` \| no \| search \|/);
});

test('docs/platform/configuration.md holds exactly the table the model produces', () => {
  const doc = readFileSync(docsFile, 'utf8');
  const start = doc.indexOf(TABLE_START);
  const end = doc.indexOf(TABLE_END);
  assert.ok(start >= 0 && end > start, 'docs/platform/configuration.md has the table markers');
  const current = doc.slice(start + TABLE_START.length, end);
  assert.fixture(
    current,
    `\n${renderConfigTable()}`,
    'docs drifted from the model: run `node dist/host/cli/config-docs.js --write docs/platform/configuration.md`',
  );
  assert.is(withConfigTable(doc), doc);
});

test.run();
