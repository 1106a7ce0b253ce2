import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { currentToolReference, TOOL_TABLE } from '../../../host/cli/mcp-docs.js';
import { keyIdOf, newKeyId, newToken } from '../../../host/platform/auth/api-key-token.js';
import { ROOT } from '../../support/gateway.js';

test('docs/mcp.md lists every tool and its arguments as the tool definitions make them', async () => {
  const doc = readFileSync(path.join(ROOT, 'docs/mcp.md'), 'utf8');
  const start = doc.indexOf(TOOL_TABLE.start);
  const end = doc.indexOf(TOOL_TABLE.end);
  assert.ok(start >= 0 && end > start, 'docs/mcp.md has the mcp-tools markers');
  const table = await currentToolReference();
  assert.ok(table.includes('| `get_fax_status` | `GET /fax/{id}` | `fax:read` | `job_id` (required) |'), table);
  // Each argument with its type, limits and meaning, from the route's schema: `q`, not `query`.
  assert.match(table, /#### `search_code`\n\nSearch a repository's code[^\n]*\n\n\| Argument \| Type \| Required \| Meaning \|\n\|---\|---\|---\|---\|\n\| `q` \| string[^|]* \| yes \| (?:[^|\\]|\\\|)*\S(?:[^|\\]|\\\|)* \|/);
  assert.match(table, /\| `limit` \| integer \(1 to 200, default `50`\) \| no \|/);
  assert.match(table, /\| `status` \| one of `"queued"`, `"in_progress"`/);
  assert.match(table, /#### `list_plugins`\n\n[^\n]+\n\nNo arguments\./);
  assert.fixture(doc.slice(start + TOOL_TABLE.start.length, end), `\n${table}`, 'docs drifted from the tools: run `node dist/host/cli/mcp-docs.js --write`');
});

test('docs/mcp.md shows keys as the key code makes them and the `npm link` the stdio command needs', () => {
  const doc = readFileSync(path.join(ROOT, 'docs/mcp.md'), 'utf8');
  const samples = doc.match(/\bsb[a-z]*_[0-9a-f<]*/g) ?? [];
  assert.ok(samples.length >= 3, samples.join(' '));
  const prefix = newToken(newKeyId()).slice(0, 4);
  for (const sample of samples) assert.ok(sample.startsWith(prefix), `${sample} is not how a key starts (${prefix})`);
  assert.is(keyIdOf(`sbk_0123456789abcdef_${'A'.repeat(43)}`), '0123456789abcdef', 'the documented example is a token shape the gateway reads');
  const link = doc.indexOf('npm link');
  const stdio = doc.indexOf('"command": "switchboard", "args": ["mcp"]');
  assert.ok(link >= 0 && stdio > link, 'npm link comes before the stdio configuration that needs it');
});

test.run();
