import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { entryLocationDiagnostic, manifestDiagnostic, type ManifestDiagnostic } from '../manifest/index.js';
import { isPluginDefinition, type PluginDefinition } from '../sdk/plugin.js';
import { hashPluginFolder } from './code-fingerprint.js';
import { installSdkResolver } from './sdk-resolver.js';

export interface EntryRoots {
  /** The package root (where manifests/ and plugins/ live). */
  packageRoot: string;
  /** Where the compiled package lives (`<packageRoot>/dist`). */
  buildRoot: string;
}

/** Where a plugin's code is, as the loader accepted it. */
export interface PluginCode {
  /** The entry module's real path (symlinks resolved). */
  entryFile: string;
  /** The plugin's folder (real path): hashed, watched, and where the entry must stay. */
  root: string;
  /** Content hash of the folder; versions the import URLs ('' for built-ins). */
  hash: string;
  /**
   * A plugin of the host package (manifests/ naming ../plugins/x): it ships and changes with the
   * host, so it is imported once, without the resolve hooks, and its folder is not watched.
   */
  builtin: boolean;
  /** Warnings about the folder (a bundled SDK copy). */
  diagnostics: ManifestDiagnostic[];
}

/** The loader refuses this plugin's code for a reason the author must fix (not a crash). */
export class EntryRefusedError extends Error {
  constructor(readonly diagnostic: ManifestDiagnostic) {
    super(diagnostic.message);
    this.name = 'EntryRefusedError';
  }
}

function inside(dir: string, file: string): boolean {
  const rel = path.relative(dir, file);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

function realDir(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return dir;
  }
}

/**
 * Finds a manifest's `entry` and the plugin folder it belongs to. Entries of our own tree name
 * the TypeScript source (`../plugins/x/index.ts`); the compiled twin under dist/ is loaded and
 * its folder is the plugin's. A third-party entry must stay, after following symlinks, inside
 * the manifest's folder; a plugin folder (`<dir>/<plugin>/manifest.json`) is that folder.
 */
export function locateEntry(manifestPath: string, entry: string, roots: EntryRoots): PluginCode {
  const manifestDir = path.dirname(manifestPath);
  const source = path.resolve(manifestDir, entry);
  const insidePackage = inside(roots.packageRoot, source);
  // The validator's rule, word for word: /plugins/validate and the loader cannot disagree.
  const outside = entryLocationDiagnostic(entry, { manifestDir, packageRoot: roots.packageRoot });
  if (outside) throw new EntryRefusedError(outside);
  let file = source;
  if (/\.(c|m)?ts$/.test(source)) {
    if (!insidePackage) throw new Error(`entry "${entry}" is TypeScript; ship compiled JavaScript`);
    file = path.join(roots.buildRoot, path.relative(roots.packageRoot, source)).replace(/\.(c|m)?ts$/, '.js');
  }
  if (!statSync(file, { throwIfNoEntry: false })?.isFile()) throw new Error(`entry module not found: ${file}`);
  const entryFile = realpathSync(file);
  // The host's own code is what a manifest names outside its folder inside the package (the
  // built-ins' ../plugins/x/index.ts), or TypeScript compiled with the host. A folder plugin
  // inside the package (DATA_DIR defaults to ./data of the checkout) is a third party's.
  const builtin = insidePackage && (file !== source || !inside(manifestDir, source));
  const allowed = realDir(builtin ? roots.packageRoot : manifestDir);
  if (!inside(allowed, entryFile)) {
    throw new EntryRefusedError(manifestDiagnostic('entry-outside-folder', 'entry', JSON.stringify(entry), entryFile, allowed));
  }
  if (builtin) return { entryFile, root: path.dirname(entryFile), hash: '', builtin: true, diagnostics: [] };
  // A folder plugin owns its folder; a bare `<id>.json` owns its entry's folder.
  const root = path.basename(manifestPath) === 'manifest.json' ? realDir(manifestDir) : path.dirname(entryFile);
  return {
    entryFile,
    root,
    hash: hashPluginFolder(root, [path.join(realDir(manifestDir), path.basename(manifestPath))]),
    builtin: false,
    diagnostics: bundledSdkDiagnostics(realDir(manifestDir), root),
  };
}

/**
 * A plugin folder with its own node_modules/switchboard is recognised and still gets the
 * host's SDK (the resolve hook maps `switchboard/sdk` before node_modules is searched); the
 * warning says so, so the author knows their copy is not what runs.
 */
function bundledSdkDiagnostics(...dirs: string[]): ManifestDiagnostic[] {
  for (const dir of new Set(dirs)) {
    const pkg = path.join(dir, 'node_modules', 'switchboard', 'package.json');
    if (!existsSync(pkg)) continue;
    let version = 'unknown';
    try {
      version = String((JSON.parse(readFileSync(pkg, 'utf8')) as { version?: unknown }).version ?? 'unknown');
    } catch {
      // An unreadable copy is still a copy.
    }
    return [manifestDiagnostic('bundled-sdk', 'entry', version, path.dirname(pkg))];
  }
  return [];
}

/**
 * Imports an entry and returns its plugin definition. A third-party entry's URL carries the
 * folder's content hash (and the resolve hook gives the plugin's own modules the same one), so
 * changed code is evaluated afresh, a failed import is not served from the cache once fixed,
 * and unchanged code is reused. A built-in is imported once, as part of the host.
 */
export async function loadEntry(code: PluginCode): Promise<PluginDefinition> {
  let url = pathToFileURL(code.entryFile).href;
  if (!code.builtin) {
    // Registered only once a plugin from outside the package is loaded: with hooks registered,
    // every later import of the process goes through the hooks thread (slower starts).
    installSdkResolver();
    url = `${url}?sbv=${code.hash}&sbroot=${encodeURIComponent(pathToFileURL(code.root).href)}`;
  }
  const mod = (await import(url)) as { default?: unknown; plugin?: unknown };
  const definition = mod.default ?? mod.plugin;
  if (!isPluginDefinition(definition)) throw new Error(`entry ${path.basename(code.entryFile)} does not export a plugin made with definePlugin (default export)`);
  return definition;
}
