import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { packPluginFolder } from '../../host/cli/plugins-pack.js';
import { writePluginFolder } from './plugin-folder.js';

/** The bytes of an unsigned package of plugin `id` at `version` (a retrieval provider answering the version), packed in `dir`. */
export async function packedPlugin(dir: string, id: string, version: string): Promise<Buffer> {
  const folder = writePluginFolder(mkdtempSync(path.join(dir, 'v-')), id, { answer: version, manifest: { version } });
  const packed = await packPluginFolder(folder, { hostVersion: '0.1.0', outDir: dir });
  return readFileSync(packed.file);
}

/** POST /plugin-registry/install of `bytes` by upload, with their sha512 integrity. */
export function uploadPackage(baseUrl: string, bytes: Buffer, headers: Record<string, string> = {}): Promise<Response> {
  const form = new FormData();
  form.set('package', new Blob([new Uint8Array(bytes)]), 'package.tgz');
  form.set('integrity', `sha512-${createHash('sha512').update(bytes).digest('base64')}`);
  return fetch(`${baseUrl}/plugin-registry/install`, { method: 'POST', body: form, headers });
}
