import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ROOT } from '../../support/gateway.js';
import { importsOf } from '../../support/source-code.js';

// The layering of design.md, read from the sources: host -> core <- plugins; inside host/,
// platform/ imports no surface and a surface imports no other surface (they meet through
// platform/ports). host/surfaces/gateway.ts is the composition root that installs all three and
// the MCP adapter (host/mcp/), a client of the API that imports the platform, never a surface.

function sourcesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(path.join(ROOT, dir))) {
    if (entry === 'node_modules') continue;
    const rel = path.posix.join(dir, entry);
    if (statSync(path.join(ROOT, rel)).isDirectory()) out.push(...sourcesUnder(rel));
    else if (/\.(ts|mts)$/.test(entry) && !entry.endsWith('.d.ts')) out.push(rel);
  }
  return out;
}

/** The rule an edge breaks, or undefined when the edge is allowed. */
export function layeringViolation(from: string, to: string): string | undefined {
  const surfaceOf = (p: string) => /^host\/surfaces\/([^/]+)\//.exec(p)?.[1];
  if (from.startsWith('core/') && (to.startsWith('host/') || to.startsWith('plugins/'))) return 'core imports nothing of host/ or plugins/';
  if (from.startsWith('plugins/') && (to.startsWith('host/') || (to.startsWith('core/') && !to.startsWith('core/sdk/')))) return 'plugins use only the SDK';
  if (from.startsWith('host/platform/') && to.startsWith('host/surfaces/')) return 'platform imports no surface';
  if (from.startsWith('host/platform/') && to.startsWith('host/mcp/')) return 'platform imports no adapter';
  if (from.startsWith('host/mcp/') && to.startsWith('host/surfaces/')) return 'the MCP adapter reaches the surfaces only through the HTTP API (the client)';
  // Only the composition root (host/surfaces/gateway.ts, settings.ts) installs the adapter: no surface knows it.
  if (surfaceOf(from) && to.startsWith('host/mcp/')) return 'a surface imports no adapter';
  const a = surfaceOf(from);
  const b = surfaceOf(to);
  if (a && b && a !== b) return `surface ${a} reaches surface ${b} only through a port in host/platform/ports`;
  return undefined;
}

test('the rules refuse the edges they name (so the scan below can fail)', () => {
  assert.ok(layeringViolation('host/platform/admin/admin.ts', 'host/surfaces/fax/jobs/job-store.ts'));
  assert.ok(layeringViolation('host/surfaces/workbench/accounting/schema-proposal.ts', 'host/surfaces/search/repositories/code-search-port.ts'));
  assert.ok(layeringViolation('core/kernel/kernel.ts', 'host/platform/db/database.ts'));
  assert.ok(layeringViolation('plugins/providera/index.ts', 'core/kernel/kernel.ts'));
  assert.is(layeringViolation('host/surfaces/search/indexing/index-runs.ts', 'host/platform/llm/accounting/run-accounting.ts'), undefined);
  assert.is(layeringViolation('host/surfaces/gateway.ts', 'host/surfaces/fax/install.ts'), undefined);
  assert.ok(layeringViolation('host/mcp/mcp-route.ts', 'host/surfaces/fax/jobs/fax-routes.ts'));
  assert.ok(layeringViolation('host/platform/gateway/platform-routes.ts', 'host/mcp/mcp-route.ts'));
  assert.ok(layeringViolation('host/surfaces/fax/install.ts', 'host/mcp/mcp-settings.ts'));
  assert.is(layeringViolation('host/mcp/mcp-route.ts', 'host/platform/http/openapi.ts'), undefined);
  assert.is(layeringViolation('host/surfaces/gateway.ts', 'host/mcp/install.ts'), undefined);
  assert.equal(importsOf('host/platform/x.ts', "import type { A } from '../surfaces/fax/a.js';\n// import { B } from '../surfaces/b.js';\nconst m = await import('./m.js');"), ['host/surfaces/fax/a.js', 'host/platform/m.js']);
});

test('host/ holds platform/, surfaces/, mcp/, cli/, bin/ and main.ts, and nothing else', () => {
  assert.equal(readdirSync(path.join(ROOT, 'host')).sort(), ['bin', 'cli', 'main.ts', 'mcp', 'platform', 'surfaces']);
  assert.equal(readdirSync(path.join(ROOT, 'host/surfaces')).filter((e) => statSync(path.join(ROOT, 'host/surfaces', e)).isDirectory()).sort(), ['fax', 'search', 'workbench']);
});

test('no import in core, plugins or host runs against the layering', () => {
  const broken: string[] = [];
  for (const file of [...sourcesUnder('core'), ...sourcesUnder('plugins'), ...sourcesUnder('host')]) {
    for (const to of importsOf(file, readFileSync(path.join(ROOT, file), 'utf8'))) {
      const rule = layeringViolation(file, to);
      if (rule) broken.push(`${file} -> ${to}: ${rule}`);
    }
  }
  assert.equal(broken, []);
});

test('the MCP adapter calls the API only through the client: no fetch in host/mcp', () => {
  const calling = sourcesUnder('host/mcp').filter((file) => /\bfetch\s*\(/.test(readFileSync(path.join(ROOT, file), 'utf8')));
  assert.equal(calling, []);
});

test('each surface exports one install and the composition root installs every surface', () => {
  const root = readFileSync(path.join(ROOT, 'host/surfaces/gateway.ts'), 'utf8');
  for (const surface of ['fax', 'search', 'workbench']) {
    const install = readFileSync(path.join(ROOT, `host/surfaces/${surface}/install.ts`), 'utf8');
    assert.match(install, /defineSurface<\w+Tables>\(\)\(\{[\s\S]*async install\(platform\)/, surface);
    assert.ok(root.includes(`./${surface}/install.js`), `host/surfaces/gateway.ts installs ${surface}`);
  }
});

test('the gateway stays a composition: build the platform, install each surface, start (under 80 lines each)', () => {
  for (const file of ['host/platform/gateway/gateway.ts', 'host/surfaces/gateway.ts']) {
    const lines = readFileSync(path.join(ROOT, file), 'utf8').trimEnd().split('\n').length;
    assert.ok(lines < 80, `${file} has ${lines} lines`);
  }
});

test.run();
