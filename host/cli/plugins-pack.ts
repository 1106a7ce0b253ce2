import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { CONTRACT_VERSIONS } from '../../core/sdk/contracts/index.js';
import { parseManifestText } from '../../core/manifest/index.js';
import { hostDeclarativeRuntimes } from '../platform/plugins/declarative-runtimes.js';
import { FILE_LIST, MAX_PACKAGE_BYTES, packageDigest, readPluginPackage, sha256Hex, SIGNATURE_FILE, type PackageFileList } from '../platform/plugins/artifacts/plugin-package.js';
import { writePackageArchive } from '../platform/plugins/artifacts/package-archive.js';
import { checkSignature, signDigest, trustedFingerprints } from '../platform/plugins/artifacts/package-signature.js';

/** Files beside the code that travel with it. */
const METADATA = /^(package\.json|README(\.[a-z]+)?|LICEN[CS]E(\.[a-z]+)?|CHANGELOG(\.[a-z]+)?)$/i;
/** What never goes in: dependencies, dot files, earlier packages. */
const SKIPPED = (name: string) => name === 'node_modules' || name.startsWith('.') || name.endsWith('.tgz');
/** The SDK's brand on definePlugin: built code carrying it has the SDK bundled in. */
const SDK_BRAND = 'switchboard.plugin';
const SDK_PACKAGES = ['switchboard', '@switchboard/sdk'];

export interface PackResult {
  file: string;
  id: string;
  version: string;
  digest: string;
  files: number;
}

/**
 * Packs a plugin folder into `<outDir>/<id>-<version>.tgz`: its manifest (linted as this host
 * would load it from a manifests folder), the folder holding its entry (dist/ for a built
 * plugin, else the whole folder) and its package.json, README, licence and changelog.
 * Refused: a manifest with errors, an entry or symbolic link leaving the folder, a bundled SDK.
 */
export async function packPluginFolder(dir: string, options: { hostVersion: string; outDir: string }): Promise<PackResult> {
  const root = realpathSync(path.resolve(dir));
  const manifestText = await readFile(path.join(root, 'manifest.json'), 'utf8').catch(() => {
    throw new Error(`${dir} has no manifest.json`);
  });
  const { manifest, diagnostics } = parseManifestText(manifestText, { hostVersion: options.hostVersion, contracts: CONTRACT_VERSIONS, declarativeBlocks: hostDeclarativeRuntimes().blocks(), location: { manifestDir: root } });
  const errors = diagnostics.filter((d) => d.severity === 'error');
  if (!manifest || errors.length) throw new Error(`the manifest fails lint: ${errors.map((d) => `${d.code} at ${d.path || '(root)'}: ${d.message}`).join('; ')}`);
  const files = new Map<string, Buffer>([['manifest.json', Buffer.from(manifestText)]]);
  const entry = 'entry' in manifest && typeof manifest.entry === 'string' ? path.posix.normalize(manifest.entry.replace(/^\.\//, '')) : undefined;
  const codeDir = entry && entry.includes('/') ? entry.split('/')[0]! : undefined;
  for (const name of readdirSync(root)) {
    if (SKIPPED(name) || name === 'manifest.json') continue;
    if (codeDir === undefined ? true : name === codeDir || METADATA.test(name)) collect(root, name, files);
  }
  if (entry && !files.has(entry)) throw new Error(`the entry ${entry} is not in the folder (build it first)`);
  refuseBundledSdk(files);
  const list: PackageFileList = {
    format: 'switchboard-plugin-package@1',
    id: manifest.id,
    version: manifest.version,
    files: [...files.keys()].sort().map((p) => ({ path: p, size: files.get(p)!.length, sha256: sha256Hex(files.get(p)!) })),
  };
  const listBytes = Buffer.from(`${JSON.stringify(list, null, 2)}\n`);
  const size = [...files.values()].reduce((n, b) => n + b.length, listBytes.length);
  if (size > MAX_PACKAGE_BYTES) throw new Error(`the plugin is ${size} bytes; a package holds at most ${MAX_PACKAGE_BYTES}`);
  const file = path.resolve(options.outDir, `${manifest.id}-${manifest.version}.tgz`);
  await writePackageArchive(new Map([[FILE_LIST, listBytes], ...files]), file);
  return { file, id: manifest.id, version: manifest.version, digest: packageDigest(listBytes), files: files.size };
}

/** Adds files under `rel` (relative to root); a symbolic link must stay inside the folder. */
function collect(root: string, rel: string, into: Map<string, Buffer>): void {
  const full = path.join(root, rel);
  const stat = lstatSync(full);
  if (stat.isSymbolicLink()) {
    const target = realpathSync(full);
    const back = path.relative(root, target);
    if (back.startsWith('..') || path.isAbsolute(back)) throw new Error(`${rel} is a symbolic link leading out of the folder (${target})`);
  }
  const real = lstatSync(realpathSync(full));
  if (real.isDirectory()) {
    for (const name of readdirSync(full)) if (!SKIPPED(name)) collect(root, path.posix.join(rel, name), into);
  } else if (real.isFile()) into.set(rel.split(path.sep).join('/'), readFileSync(full));
}

function refuseBundledSdk(files: Map<string, Buffer>): void {
  const pkg = files.get('package.json');
  if (pkg) {
    let declared: Record<string, unknown> = {};
    try {
      declared = JSON.parse(pkg.toString('utf8')) as Record<string, unknown>;
    } catch {
      throw new Error('package.json is not JSON');
    }
    const shipped = [declared.dependencies, declared.bundleDependencies, declared.bundledDependencies]
      .flatMap((d) => (Array.isArray(d) ? d : d && typeof d === 'object' ? Object.keys(d) : []))
      .filter((name) => SDK_PACKAGES.includes(String(name)));
    if (shipped.length) throw new Error(`package.json ships the SDK (${shipped.join(', ')} in dependencies); the host hands every plugin its own SDK: make it a devDependency or peerDependency`);
  }
  for (const [name, body] of files) {
    if (/\.(c|m)?js$/.test(name) && body.includes(SDK_BRAND)) throw new Error(`${name} bundles the SDK (it defines definePlugin's brand); import switchboard/sdk and leave it external`);
  }
}

/** Adds (or replaces) the Ed25519 signature of a package, in place. */
export async function signPackageFile(file: string, privateKeyPem: string): Promise<{ digest: string; fingerprint: string }> {
  const bytes = await readFile(file);
  const pkg = await readPluginPackage(bytes);
  const signature = signDigest(pkg.digest, privateKeyPem);
  // files.json is written back byte for byte: the digest, and so the signature, stay valid.
  const entries = new Map<string, Buffer>([[FILE_LIST, pkg.listBytes], ...pkg.files, [SIGNATURE_FILE, Buffer.from(`${JSON.stringify(signature, null, 2)}\n`)]]);
  await writePackageArchive(entries, file);
  return { digest: pkg.digest, fingerprint: signature.fingerprint };
}

export interface VerifyResult {
  id: string;
  version: string;
  digest: string;
  integrity: string;
  signer: string | null;
  trusted: boolean | null;
}

/** Reads and checks a package (file hashes, signature; a trusted-key list when given). Throws on tampering. */
export async function verifyPackageFile(file: string, trustedKeys?: string): Promise<VerifyResult> {
  const bytes = await readFile(file);
  const pkg = await readPluginPackage(bytes);
  const state = checkSignature(pkg);
  const signer = state.state === 'signed' ? state.fingerprint : null;
  return {
    id: pkg.list.id,
    version: pkg.list.version,
    digest: pkg.digest,
    integrity: `sha512-${createHash('sha512').update(bytes).digest('base64')}`,
    signer,
    trusted: trustedKeys === undefined || !signer ? null : trustedFingerprints(trustedKeys).has(signer),
  };
}
