// Module resolution hooks registered with node:module's register() (see sdk-resolver.ts); they
// run on the loader thread, so this file imports nothing of ours.
//
// 1. `switchboard/sdk`, `@switchboard/sdk` (the SDK package's name) and their subpaths resolve
//    to the host's own build, from any module, wherever it lives and whatever node_modules it
//    has: every plugin gets the host's one SDK instance and version (its error classes, its
//    brand on definePlugin), and an installed SDK package is only ever the author's types and kit.
// 2. A plugin's entry is imported as `<file>?sbv=<content hash>&sbroot=<plugin folder>`; the
//    folder is remembered under the hash and dropped from the URL, and every module the plugin
//    imports from inside that folder gets the same `?sbv=` query. A changed file gives a new
//    hash, so the whole folder is evaluated afresh instead of served from the import cache.

interface HookData {
  /** file: URL of the host's package.json: the SDK resolves as a self-reference from it. */
  hostPackageJson: string;
  /** The SDK's specifier in that package: `switchboard/sdk` (the host) or `@switchboard/sdk` (the SDK package). */
  sdkSpecifier: string;
}

interface ResolveContext {
  conditions: string[];
  importAttributes?: Record<string, string>;
  parentURL?: string;
}
type ResolveResult = { url: string; format?: string | null; shortCircuit?: boolean };
type NextResolve = (specifier: string, context?: Partial<ResolveContext>) => Promise<ResolveResult> | ResolveResult;

let hostPackageJson = '';
let sdkSpecifier = 'switchboard/sdk';
const SDK_SPECIFIERS = ['switchboard/sdk', '@switchboard/sdk'];
/** Plugin folders (file: URL prefixes ending in "/") by content hash. */
const roots = new Map<string, string>();

export function initialize(data: HookData): void {
  hostPackageJson = data.hostPackageJson;
  sdkSpecifier = data.sdkSpecifier;
}

/** The subpath of an SDK specifier (`''`, `/fax`, `/testing`), or undefined for any other. */
function sdkSubpath(specifier: string): string | undefined {
  for (const name of SDK_SPECIFIERS) if (specifier === name || specifier.startsWith(`${name}/`)) return specifier.slice(name.length);
  return undefined;
}

export async function resolve(specifier: string, context: ResolveContext, nextResolve: NextResolve): Promise<ResolveResult> {
  const subpath = sdkSubpath(specifier);
  if (subpath !== undefined) return nextResolve(`${sdkSpecifier}${subpath}`, { ...context, parentURL: hostPackageJson });
  if (specifier.startsWith('file:') && specifier.includes('sbroot=')) {
    const url = new URL(specifier);
    const version = url.searchParams.get('sbv');
    const root = url.searchParams.get('sbroot');
    if (version && root) {
      roots.set(version, root.endsWith('/') ? root : `${root}/`);
      url.search = `?sbv=${version}`;
      return nextResolve(url.href, context);
    }
  }
  const resolved = await nextResolve(specifier, context);
  const version = versionOf(context.parentURL);
  if (!version || !resolved.url.startsWith('file:')) return resolved;
  const root = roots.get(version);
  const child = new URL(resolved.url);
  if (!root || child.search || !child.href.startsWith(root) || child.pathname.slice(new URL(root).pathname.length).split('/').includes('node_modules')) return resolved;
  child.search = `?sbv=${version}`;
  return { ...resolved, url: child.href };
}

function versionOf(parentURL: string | undefined): string | undefined {
  if (!parentURL?.startsWith('file:') || !parentURL.includes('sbv=')) return undefined;
  return new URL(parentURL).searchParams.get('sbv') ?? undefined;
}
