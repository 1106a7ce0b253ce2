import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { currentToolTable, TOOL_TABLE } from '../../../host/cli/mcp-docs.js';
import { ROOT } from '../../support/gateway.js';

test('docs/mcp.md lists every tool as the tool definitions make it', async () => {
  const doc = readFileSync(path.join(ROOT, 'docs/mcp.md'), 'utf8');
  const start = doc.indexOf(TOOL_TABLE.start);
  const end = doc.indexOf(TOOL_TABLE.end);
  assert.ok(start >= 0 && end > start, 'docs/mcp.md has the mcp-tools markers');
  const table = await currentToolTable();
  assert.ok(table.includes('| `get_fax_status` | `GET /fax/{id}` | `fax:read` | `job_id` (required) |'), table);
  assert.fixture(doc.slice(start + TOOL_TABLE.start.length, end), `\n${table}`, 'docs drifted from the tools: run `node dist/host/cli/mcp-docs.js --write`');
});

test.run();
