import { createHash } from 'node:crypto';
import path from 'node:path';
import type { ReadEntry } from 'tar';
import { z } from 'zod';

/**
 * A packed plugin, `<id>-<version>.tgz` (gzip tar, every entry under `package/`):
 * - `files.json`: the package's id and version and every other file with its size and SHA-256;
 * - `manifest.json` and the built code, listed there;
 * - `signature.json` (added by `plugins sign`): an Ed25519 signature over the package digest.
 * The package digest is `sha256-<base64>` of files.json's bytes: it covers the id, the version
 * and, through each file's hash, every byte of the plugin. The signature covers exactly that.
 */
export const PACKAGE_PREFIX = 'package/';
export const FILE_LIST = 'files.json';
export const SIGNATURE_FILE = 'signature.json';
/** Packed and installed packages are refused above this size, compressed or not. */
export const MAX_PACKAGE_BYTES = 32 * 1024 * 1024;

export const PackageFileList = z
  .object({
    format: z.literal('switchboard-plugin-package@1'),
    id: z.string(),
    version: z.string(),
    files: z.array(z.object({ path: z.string(), size: z.number().int().nonnegative(), sha256: z.string().regex(/^[0-9a-f]{64}$/) }).strict()),
  })
  .strict();
export type PackageFileList = z.infer<typeof PackageFileList>;

export const PackageSignature = z
  .object({
    algorithm: z.literal('ed25519'),
    digest: z.string().describe('The package digest the signature is over (sha256-<base64> of files.json)'),
    public_key: z.string().describe('The signer\'s public key: base64 of its SPKI DER'),
    fingerprint: z.string().describe('SHA256:<base64> of the SPKI DER'),
    signature: z.string().describe('base64 Ed25519 signature of the digest text'),
  })
  .strict();
export type PackageSignature = z.infer<typeof PackageSignature>;

/** Why a package cannot be read or does not hold together; `code` is the error code it answers. */
export class PackageProblem extends Error {
  constructor(
    readonly code: 'package_invalid' | 'package_tampered',
    message: string,
  ) {
    super(message);
    this.name = 'PackageProblem';
  }
}

/** A package read and checked against its own file list (not yet against a signer or a host). */
export interface PluginPackage {
  list: PackageFileList;
  /** files.json as packed: the digest is over these bytes. */
  listBytes: Buffer;
  /** Every listed file by its path inside the package (manifest.json, dist/index.js, ...). */
  files: Map<string, Buffer>;
  manifestText: string;
  digest: string;
  signature?: PackageSignature;
}

export function sha256Hex(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export function packageDigest(fileListBytes: Buffer): string {
  return `sha256-${createHash('sha256').update(fileListBytes).digest('base64')}`;
}

/** A relative path that stays inside the package: no `..`, no absolute path, no backslash. */
export function safePackagePath(p: string): boolean {
  if (!p || p.includes('\\') || p.includes('\0') || path.posix.isAbsolute(p)) return false;
  const normal = path.posix.normalize(p);
  return normal === p && normal !== '..' && !normal.startsWith('../');
}

/** Reads a .tgz into its entries; only regular files under package/, at most MAX_PACKAGE_BYTES unpacked. */
export async function readTarEntries(bytes: Buffer): Promise<Map<string, Buffer>> {
  const entries = new Map<string, Buffer>();
  let total = 0;
  let problem: PackageProblem | undefined;
  // tar loads with the first package read (an install or a pack), not with every gateway.
  const { Parser } = await import('tar');
  const parser = new Parser({
    strict: true,
    onReadEntry: (entry: ReadEntry) => {
      const name = entry.path.startsWith(PACKAGE_PREFIX) ? entry.path.slice(PACKAGE_PREFIX.length) : '';
      if (entry.type === 'Directory') return entry.resume();
      if (entry.type !== 'File' || !safePackagePath(name)) {
        problem ??= new PackageProblem('package_invalid', `the package holds an entry it may not: ${entry.type} "${entry.path}"`);
        return entry.resume();
      }
      const chunks: Buffer[] = [];
      entry.on('data', (c: Buffer) => {
        total += c.length;
        if (total > MAX_PACKAGE_BYTES) problem ??= new PackageProblem('package_invalid', `the package unpacks to more than ${MAX_PACKAGE_BYTES} bytes`);
        else chunks.push(c);
      });
      entry.on('end', () => {
        if (entries.has(name)) problem ??= new PackageProblem('package_invalid', `the package holds "${name}" twice`);
        entries.set(name, Buffer.concat(chunks));
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    parser.on('error', (err: Error) => reject(new PackageProblem('package_invalid', `not a plugin package (gzip tar): ${err.message}`)));
    parser.on('warn', (_code: string, message: string | Error) => {
      problem ??= new PackageProblem('package_invalid', `not a plugin package (gzip tar): ${typeof message === 'string' ? message : message.message}`);
    });
    parser.on('end', () => resolve());
    parser.end(bytes);
  });
  if (problem) throw problem;
  return entries;
}

/**
 * Reads a package and checks it against its file list: every listed file present with its size
 * and hash, nothing unlisted besides the list and the signature. A mismatch is `package_tampered`.
 */
export async function readPluginPackage(bytes: Buffer): Promise<PluginPackage> {
  const entries = await readTarEntries(bytes);
  const listBytes = entries.get(FILE_LIST);
  if (!listBytes) throw new PackageProblem('package_invalid', `the package has no ${FILE_LIST}`);
  let list: PackageFileList;
  try {
    list = PackageFileList.parse(JSON.parse(listBytes.toString('utf8')));
  } catch (err) {
    throw new PackageProblem('package_invalid', `${FILE_LIST} is not a package file list: ${(err as Error).message.slice(0, 300)}`);
  }
  const files = new Map<string, Buffer>();
  for (const f of list.files) {
    const body = entries.get(f.path);
    if (!body) throw new PackageProblem('package_tampered', `"${f.path}" is listed but missing`);
    if (body.length !== f.size || sha256Hex(body) !== f.sha256) throw new PackageProblem('package_tampered', `"${f.path}" does not match its SHA-256 in ${FILE_LIST}`);
    files.set(f.path, body);
  }
  for (const name of entries.keys()) {
    if (name !== FILE_LIST && name !== SIGNATURE_FILE && !files.has(name)) throw new PackageProblem('package_tampered', `"${name}" is in the package but not in ${FILE_LIST}`);
  }
  const manifest = files.get('manifest.json');
  if (!manifest) throw new PackageProblem('package_invalid', 'the package has no manifest.json');
  const out: PluginPackage = { list, listBytes, files, manifestText: manifest.toString('utf8'), digest: packageDigest(listBytes) };
  const signature = entries.get(SIGNATURE_FILE);
  if (signature) {
    try {
      out.signature = PackageSignature.parse(JSON.parse(signature.toString('utf8')));
    } catch (err) {
      throw new PackageProblem('package_tampered', `${SIGNATURE_FILE} is not a package signature: ${(err as Error).message.slice(0, 300)}`);
    }
  }
  return out;
}
