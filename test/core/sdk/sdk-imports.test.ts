import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// The SDK is what plugins import: it must carry nothing else of core (the kernel, the config
// store, the manifest validator), or a plugin would load host internals with it.

// dist/test/core/sdk -> the package root
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
const sdk = path.join(root, 'core', 'sdk');
const exportsMap = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { exports: Record<string, string | { default: string }> }).exports;

/** Every module specifier of a source text: static imports and re-exports, side-effect and dynamic imports. */
function specifiersOf(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const patterns = [
    /\b(?:import|export)\s+(?:type\s+)?[^'";]*?\bfrom\s*['"]([^'"]+)['"]/g,
    /\bimport\s*['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
    /\brequire\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  return patterns.flatMap((re) => [...code.matchAll(re)].map((m) => m[1]!));
}

/** The source file or folder a specifier names, or undefined for a package outside ours. */
function resolveSpecifier(from: string, specifier: string): string | undefined {
  if (specifier.startsWith('.')) return path.resolve(path.dirname(from), specifier);
  if (specifier === 'switchboard' || specifier.startsWith('switchboard/')) {
    const entry = exportsMap[`.${specifier.slice('switchboard'.length)}`];
    const target = typeof entry === 'string' ? entry : entry?.default;
    // An unknown subpath is a violation too: it cannot be shown to stay in the SDK.
    return target ? path.join(root, target.replace(/^\.\/dist\//, '')) : root;
  }
  return undefined;
}

/** Ours but not the SDK's: core (or anything else of the package) outside core/sdk. */
function outsideSdk(target: string): boolean {
  const inside = (dir: string) => !path.relative(dir, target).startsWith('..');
  return inside(root) && !inside(sdk) && !inside(path.join(root, 'node_modules'));
}

/** `file: specifier` for every import of `text` (as the file `file`) that leaves the SDK for the rest of ours. */
function violations(file: string, text: string): string[] {
  return specifiersOf(text)
    .filter((s) => {
      const target = resolveSpecifier(file, s);
      return target !== undefined && outsideSdk(target);
    })
    .map((s) => `${path.relative(root, file)}: ${s}`);
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return /\.(c|m)?(ts|js)$/.test(e.name) ? [full] : [];
  });
}

test('the checker reads every kind of import and flags one that leaves core/sdk', () => {
  const file = path.join(sdk, 'testing', 'example.ts');
  const text = [
    "import type { PluginDefinition } from '../plugin.js';",
    "import {\n  Kernel,\n} from '../../kernel/kernel.js';",
    "export { resolveSettings } from '../../kernel/settings-resolver.js';",
    "import '../../config/plugin-config-store.js';",
    "const m = await import('../../manifest/index.js');",
    "import { startTestKernel } from 'switchboard/sdk/testing';",
    "import { z } from 'zod';",
    "// import { x } from '../../kernel/commented-out.js';",
  ].join('\n');
  assert.equal(violations(file, text).sort(), [
    'core/sdk/testing/example.ts: ../../kernel/kernel.js',
    'core/sdk/testing/example.ts: ../../kernel/settings-resolver.js',
    'core/sdk/testing/example.ts: ../../config/plugin-config-store.js',
    'core/sdk/testing/example.ts: ../../manifest/index.js',
    'core/sdk/testing/example.ts: switchboard/sdk/testing',
  ].sort());
});

test('no file under core/sdk imports anything of core outside core/sdk', () => {
  const files = sourceFiles(sdk);
  assert.ok(files.some((f) => f.endsWith(path.join('testing', 'start-plugin.ts'))), 'the SDK source tree is read');
  assert.ok(files.flatMap((f) => specifiersOf(readFileSync(f, 'utf8'))).length > files.length, 'its imports are seen');
  assert.equal(files.flatMap((f) => violations(f, readFileSync(f, 'utf8'))), []);
});

test.run();
