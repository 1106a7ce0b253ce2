import { statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { isPluginDefinition, type PluginDefinition } from '../sdk/plugin.js';

export interface EntryRoots {
  /** The package root (where manifests/ and plugins/ live). */
  packageRoot: string;
  /** Where the compiled package lives (`<packageRoot>/dist`). */
  buildRoot: string;
}

/**
 * Resolves a manifest's `entry` to a loadable module. Entries of our own tree name the
 * TypeScript source (`../plugins/x/index.ts`); the compiled twin under dist/ is loaded.
 */
export function resolveEntry(manifestPath: string, entry: string, roots: EntryRoots): string {
  const source = path.resolve(path.dirname(manifestPath), entry);
  const manifestDir = path.dirname(manifestPath);
  const rel = path.relative(manifestDir, source);
  const insidePackage = !path.relative(roots.packageRoot, source).startsWith('..');
  if (rel.startsWith('..') && !insidePackage) throw new Error(`entry "${entry}" escapes the manifest's directory`);
  if (/\.(c|m)?ts$/.test(source)) {
    if (!insidePackage) throw new Error(`entry "${entry}" is TypeScript; ship compiled JavaScript`);
    const compiled = path.join(roots.buildRoot, path.relative(roots.packageRoot, source)).replace(/\.(c|m)?ts$/, '.js');
    return compiled;
  }
  return source;
}

/**
 * Imports an entry and returns its plugin definition. The URL carries the file's mtime, so an
 * edited module is loaded fresh while an unchanged one is reused.
 */
export async function loadEntry(file: string): Promise<PluginDefinition> {
  const info = statSync(file, { throwIfNoEntry: false });
  if (!info?.isFile()) throw new Error(`entry module not found: ${file}`);
  const mod = (await import(`${pathToFileURL(file).href}?v=${Math.trunc(info.mtimeMs)}`)) as { default?: unknown; plugin?: unknown };
  const definition = mod.default ?? mod.plugin;
  if (!isPluginDefinition(definition)) throw new Error(`entry ${path.basename(file)} does not export a plugin made with definePlugin (default export)`);
  return definition;
}
