import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * A third-party plugin folder as an author ships it: manifest.json and plain ESM JavaScript
 * importing `switchboard/sdk`, no node_modules. `answer.js` is a module of its own folder.
 */
export function writePluginFolder(dir: string, id: string, options: { answer?: string; manifest?: Record<string, unknown> } = {}): string {
  const folder = path.join(dir, id);
  mkdirSync(path.join(folder, 'lib'), { recursive: true });
  writeFileSync(
    path.join(folder, 'index.js'),
    `import * as sdk from 'switchboard/sdk';
import { definePlugin, z } from 'switchboard/sdk';
import { answer } from './lib/answer.js';

globalThis.__switchboardSdkOf = { ...(globalThis.__switchboardSdkOf ?? {}), ${JSON.stringify(id)}: sdk };

export default definePlugin({
  settings: z.object({ fail: z.boolean().default(false) }),
  start(ctx) {
    if (ctx.settings.fail) throw new Error('start refused by settings');
    return {
      providers: {
        retrieval: {
          async index(_c, docs) { return { indexed: docs.length }; },
          async search() { return [{ id: answer(), score: 1, text: 'generation ' + ctx.generation }]; },
          async delete() { return { deleted: 0 }; },
        },
      },
    };
  },
});
`,
  );
  writeHelper(folder, options.answer ?? 'first');
  writeAtomic(
    path.join(folder, 'manifest.json'),
    JSON.stringify({
      manifestVersion: 1,
      id,
      name: `Folder ${id}`,
      version: '1.0.0',
      description: 'a plugin folder outside the package',
      author: 'tests',
      host: '^0.1.0',
      provides: [{ kind: 'retrieval', contract: 'retrieval@^1' }],
      capabilities: [],
      egress: [],
      entry: 'index.js',
      ...options.manifest,
    }),
  );
  return folder;
}

/** Rewrites the folder's helper module (imported by index.js) to answer `value`. */
export function writeHelper(folder: string, value: string, body?: string): void {
  writeAtomic(path.join(folder, 'lib', 'answer.js'), body ?? `export function answer() { return ${JSON.stringify(value)}; }\n`);
}

export function writeAtomic(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.partial`;
  writeFileSync(tmp, text);
  renameSync(tmp, file);
}
