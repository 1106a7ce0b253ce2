import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { PDFDocument } from 'pdf-lib';
import { CONTRACT_VERSIONS, type FaxSendRequest, type PluginDefinition, type ProviderKind } from '../../core/sdk/index.js';
import { parseManifestText, type Manifest } from '../../core/manifest/index.js';
import { declarativeBlockOf } from '../../core/kernel/declarative-runtimes.js';
import { loadEntry, locateEntry, type EntryRoots } from '../../core/kernel/entry-loader.js';
import { conformance, type ConformanceCase } from '../../core/testing/index.js';
import { hostDeclarativeRuntimes } from '../platform/plugins/declarative-runtimes.js';

export interface PluginsTestOptions {
  /** The plugin folder (holding manifest.json). */
  dir: string;
  hostVersion: string;
  roots: EntryRoots;
  /** Settings the plugin starts with in every case (as the config store would hold them). */
  settings?: Record<string, unknown>;
  /** False skips the plugin's own test files (`--conformance-only`). */
  ownTests?: boolean;
  out(line: string): void;
}

export interface PluginsTestResult {
  passed: number;
  failed: number;
}

/**
 * `switchboard plugins test <dir>`: validates the folder's manifest as this host would, loads
 * its code through the host's loader (entry checks, the host's switchboard/sdk), then runs the
 * conformance suite of every kind the manifest provides. Throws for a folder it cannot load.
 */
export async function testPluginFolder(options: PluginsTestOptions): Promise<PluginsTestResult> {
  const manifestFile = path.resolve(options.dir, 'manifest.json');
  const runtimes = hostDeclarativeRuntimes();
  const { manifest, diagnostics } = parseManifestText(readFileSync(manifestFile, 'utf8'), {
    hostVersion: options.hostVersion,
    contracts: CONTRACT_VERSIONS,
    declarativeBlocks: runtimes.blocks(),
  });
  for (const d of diagnostics) options.out(`${manifestFile}: ${d.severity} ${d.code} at ${d.path || '(root)'}: ${d.message}`);
  if (!manifest) throw new Error(`${manifestFile} is not a valid manifest`);
  const plugin = await definitionOf(manifest, manifestFile, options.roots, runtimes);
  const dataDir = mkdtempSync(path.join(tmpdir(), `switchboard-plugins-test-${manifest.id}-`));
  // A code plugin declared for an older contract major is tested through its adapter, as the gateway serves it.
  const contracts = declarativeBlockOf(manifest) ? [] : manifest.provides.map((p) => p.contract);
  const common = { plugin, pluginId: manifest.id, settings: options.settings ?? {}, dataDir, contracts };
  const cases: ConformanceCase[] = [];
  for (const { kind } of manifest.provides) cases.push(...suiteFor(kind as ProviderKind, common, dataDir));
  let passed = 0;
  let failed = 0;
  try {
    for (const c of cases) {
      try {
        await c.run();
        passed++;
        options.out(`ok   ${c.name}`);
      } catch (err) {
        failed++;
        options.out(`FAIL ${c.name}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  if (options.ownTests !== false) {
    const folder = path.dirname(manifestFile);
    for (const file of ownTestFiles(folder)) {
      const rel = path.relative(folder, file);
      const run = await runOwnTest(file, folder, options.roots.buildRoot);
      if (run.code === 0) {
        passed++;
        options.out(`ok   own tests: ${rel}`);
      } else {
        failed++;
        options.out(`FAIL own tests: ${rel} (exit ${run.code ?? run.signal})`);
        for (const line of run.output.trimEnd().split('\n')) options.out(`     ${line}`);
      }
    }
  }
  options.out(`${manifest.id}@${manifest.version}: ${passed} passed, ${failed} failed`);
  return { passed, failed };
}

/**
 * The plugin's own compiled tests: `*.test.js` and `*.test.mjs` anywhere in the folder but
 * node_modules and dot folders (TypeScript sources are run once compiled, e.g. dist/plugin.test.js).
 */
export function ownTestFiles(folder: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && /\.test\.m?js$/.test(entry.name)) found.push(full);
    }
  };
  walk(folder);
  return found;
}

/**
 * Runs one test file in its own Node process with the host's SDK resolver installed, so its
 * `switchboard/sdk/testing` (and the plugin's `switchboard/sdk`) are this host's build, although
 * the folder has no switchboard installed. A `node:test` or uvu file sets the exit code.
 */
function runOwnTest(file: string, cwd: string, buildRoot: string): Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }> {
  const register = path.join(buildRoot, 'core/kernel/sdk-register.js');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', pathToFileURL(register).href, file], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, output }));
  });
}

async function definitionOf(manifest: Manifest, manifestFile: string, roots: EntryRoots, runtimes: ReturnType<typeof hostDeclarativeRuntimes>): Promise<PluginDefinition> {
  const block = declarativeBlockOf(manifest);
  if (!block) {
    const code = locateEntry(manifestFile, (manifest as { entry: string }).entry, roots);
    return loadEntry(code);
  }
  const factory = runtimes.get(block);
  if (!factory) throw new Error(`the "${block}" block is not supported by this host`);
  return factory(manifest);
}

function suiteFor(kind: ProviderKind, common: { plugin: PluginDefinition; pluginId: string; settings: Record<string, unknown>; dataDir: string; contracts: string[] }, dataDir: string): ConformanceCase[] {
  if (kind === 'fax') return conformance.fax({ ...common, sample: () => sampleFax(dataDir) });
  return conformance[kind](common);
}

/** A one-page PDF fax to a test number; artifacts go to the run's temp directory. */
async function sampleFax(dataDir: string): Promise<FaxSendRequest> {
  const pdf = await PDFDocument.create();
  pdf.addPage().drawText('switchboard plugins test');
  const bytes = Buffer.from(await pdf.save());
  const save = async (name: string, data: Buffer) => {
    const localPath = path.join(dataDir, path.basename(name));
    const { writeFile } = await import('node:fs/promises');
    await writeFile(localPath, data, { mode: 0o600 });
    return { key: name, localPath };
  };
  return {
    jobId: `conformance-${Date.now()}`,
    to: '+15555550100',
    publicBaseUrl: 'http://127.0.0.1:8080',
    document: {
      url: 'http://127.0.0.1:8080/fax-documents/conformance.pdf',
      pages: 1,
      read: async () => bytes,
      saveArtifact: save,
      renderTiff: async () => {
        throw new Error('renderTiff is not available in `plugins test`; test TIFF providers with faxConformance in your own suite');
      },
    },
  };
}
