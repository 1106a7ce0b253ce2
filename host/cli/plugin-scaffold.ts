import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CONTRACT_VERSIONS, PROVIDER_KINDS, type ProviderKind } from '../../core/sdk/index.js';

/**
 * The provider of each kind as a working stand-in (in memory; retrieval in JSON files): it passes
 * the kind's conformance suite as generated, so an author starts from green and replaces it.
 * Written without type annotations, the same text is src/index.ts and the prebuilt dist/index.js.
 */
const PROVIDERS: Record<ProviderKind, { imports: string; settings?: string; capabilities: string[]; body: string }> = {
  fax: {
    imports: `import { definePlugin } from '@switchboard/sdk';`,
    capabilities: ['send', 'status'],
    body: `    // Replace with your provider's API: send uploads request.document, status asks about a sid.
    const sent = new Map();
    let next = 0;
    return {
      providers: {
        fax: {
          async send(request) {
            const providerSid = \`\${ctx.pluginId}-\${++next}\`;
            sent.set(providerSid, { to: request.to, pages: request.document.pages });
            ctx.logger.info(\`accepted job \${request.jobId} as \${providerSid}\`);
            return { providerSid, status: 'queued' };
          },
          async status(ref) {
            const fax = ref.providerSid ? sent.get(ref.providerSid) : undefined;
            return fax ? { providerSid: ref.providerSid, status: 'SUCCESS', pages: fax.pages } : null;
          },
        },
      },
      health: () => ({ ok: true, checked: 'shape', detail: 'in-memory stand-in: no provider is contacted' }),
    };`,
  },
  storage: {
    imports: `import { Readable } from 'node:stream';\nimport { assertStorageKey, definePlugin, StorageNotFoundError } from '@switchboard/sdk';`,
    capabilities: [],
    body: `    // Replace with your store: keys are checked by assertStorageKey, a missing key is StorageNotFoundError.
    const objects = new Map();
    const read = (key) => {
      assertStorageKey(key);
      const object = objects.get(key);
      if (!object) throw new StorageNotFoundError(key);
      return object;
    };
    return {
      providers: {
        storage: {
          async put(key, data) {
            assertStorageKey(key);
            const bytes = Buffer.isBuffer(data) ? data : Buffer.concat(await data.toArray());
            const entry = { key, size: bytes.length, modifiedAt: new Date() };
            objects.set(key, { bytes, entry });
            return entry;
          },
          async get(key) {
            return read(key).bytes;
          },
          async stream(key) {
            return Readable.from([read(key).bytes]);
          },
          async delete(key) {
            assertStorageKey(key);
            return objects.delete(key);
          },
          async exists(key) {
            assertStorageKey(key);
            return objects.has(key);
          },
          async list(prefix = '') {
            return [...objects.values()].map((o) => o.entry).filter((e) => e.key.startsWith(prefix));
          },
        },
      },
    };`,
  },
  retrieval: {
    imports: `import { existsSync } from 'node:fs';\nimport { mkdir, readFile, rename, writeFile } from 'node:fs/promises';\nimport path from 'node:path';\nimport { dataPath, definePlugin, z } from '@switchboard/sdk';`,
    settings: `  // <DATA_DIR>/${'$'}{id}: the gateway and its indexer process (code search) share the files.
  settings: z.object({ dir: dataPath('${'$'}{id}') }),
`,
    capabilities: ['index', 'search', 'delete', 'stats', 'write-sessions'],
    body: `    // Replace with your search engine. A collection is one JSON file: documents by id and the
    // content hash of every source path; a write replaces the file whole (rename).
    const file = (name) => path.join(ctx.settings.dir, \`\${encodeURIComponent(name)}.json\`);
    const read = async (name) => (existsSync(file(name)) ? JSON.parse(await readFile(file(name), 'utf8')) : { documents: {}, sources: {} });
    const statsOf = (c) => ({ documents: Object.keys(c.documents).length, sources: Object.keys(c.sources).length, vectors: 0 });
    const write = async (name, c) => {
      await mkdir(ctx.settings.dir, { recursive: true });
      const temp = \`\${file(name)}.\${process.pid}.tmp\`;
      await writeFile(temp, JSON.stringify(c));
      await rename(temp, file(name));
      return statsOf(c);
    };
    const terms = (text) => text.toLowerCase().split(/[^a-z0-9_]+/).filter(Boolean);
    const writing = new Set();
    return {
      providers: {
        retrieval: {
          async index(name, documents) {
            const c = await read(name);
            for (const doc of documents) c.documents[doc.id] = doc;
            await write(name, c);
            return { indexed: documents.length };
          },
          async search(name, query, topK) {
            const wanted = terms(query);
            const { documents } = await read(name);
            return Object.keys(documents)
              .map((id) => documents[id])
              .map((doc) => ({ doc, score: terms(doc.text).filter((t) => wanted.includes(t)).length }))
              .filter((hit) => hit.score > 0)
              .sort((a, b) => b.score - a.score)
              .slice(0, topK)
              .map(({ doc, score }) => ({ id: doc.id, score, text: doc.text, metadata: doc.metadata ?? {} }));
          },
          async delete(name, ids) {
            const c = await read(name);
            const deleted = ids.filter((id) => Object.hasOwn(c.documents, id) && delete c.documents[id]).length;
            await write(name, c);
            return { deleted };
          },
          async stats(name) {
            return statsOf(await read(name));
          },
          // Code search indexes through write sessions: nothing is visible until commit.
          async openSession(name) {
            const draft = await read(name);
            if (writing.has(name)) throw new Error(\`collection "\${name}" is being written by another session\`);
            writing.add(name);
            let open = true;
            const live = () => {
              if (!open) throw new Error('the write session is closed');
            };
            const close = () => {
              open = false;
              writing.delete(name);
            };
            const dropSource = (source) => {
              let dropped = 0;
              for (const id of Object.keys(draft.documents)) if (draft.documents[id].metadata?.path === source && delete draft.documents[id]) dropped++;
              delete draft.sources[source];
              return dropped;
            };
            return {
              async sources() {
                return Object.keys(draft.sources).map((source) => ({ path: source, hash: draft.sources[source] }));
              },
              async replaceSource(source, hash, documents) {
                live();
                dropSource(source);
                for (const doc of documents) draft.documents[doc.id] = doc;
                draft.sources[source] = hash;
              },
              async deleteSources(sources) {
                live();
                return { deleted: sources.reduce((n, source) => n + dropSource(source), 0) };
              },
              async commit() {
                live();
                close();
                return write(name, draft);
              },
              async abort() {
                close();
              },
            };
          },
        },
      },
    };`,
  },
  judge: {
    imports: `import { definePlugin } from '@switchboard/sdk';`,
    capabilities: [],
    body: `    // Replace with your model: answer each question with the probability of yes.
    return {
      providers: {
        judge: {
          async ask(request) {
            const answers = Object.fromEntries(Object.keys(request.questions).map((id) => [id, 0.5]));
            return { model: request.model ?? 'stand-in', answers, usage: { input_tokens: 0, output_tokens: 0 } };
          },
        },
      },
    };`,
  },
  'alert-sink': {
    imports: `import { definePlugin } from '@switchboard/sdk';`,
    capabilities: [],
    body: `    // Replace with your channel: deliver posts the notice as stored (pass signal on: the host stops
    // waiting when it aborts); a failure says whether a retry can help (permanent).
    return {
      providers: {
        'alert-sink': {
          async deliver(notice, signal) {
            if (signal?.aborted) return { ok: false, detail: 'aborted before sending' };
            ctx.logger.info(\`alert \${notice.event_id} (\${notice.severity}, \${notice.status}): \${notice.title}\`);
            return { ok: true };
          },
        },
      },
    };`,
  },
  'inbound-sink': {
    imports: `import { definePlugin } from '@switchboard/sdk';`,
    capabilities: [],
    body: `    // Replace with your channel: deliver hands one inbound fax (attached or linked) to the
    // mailbox's recipients; the host retries failures unless they are permanent.
    return {
      providers: {
        'inbound-sink': {
          async deliver(delivery, signal) {
            if (signal?.aborted) return { ok: false, detail: 'aborted before sending' };
            ctx.logger.info(\`inbound fax \${delivery.fax.id} (\${delivery.document.mode}) for \${delivery.recipients.length} recipient(s)\`);
            return { ok: true };
          },
        },
      },
    };`,
  },
};

const PLUGIN_ID = /^[a-z0-9][a-z0-9-]{1,62}$/;

export function isProviderKind(kind: string): kind is ProviderKind {
  return (PROVIDER_KINDS as readonly string[]).includes(kind);
}

function indexSource(kind: ProviderKind, id: string): string {
  const { imports, body, settings = '' } = PROVIDERS[kind];
  return `${imports}

export default definePlugin({
${settings.replaceAll('${id}', id)}  start(ctx) {
${body}
  },
});
`;
}

function testSource(kind: ProviderKind): string {
  const sample =
    kind === 'fax'
      ? `, sample: () => ({
    jobId: \`test-\${Date.now()}\`,
    to: '+15555550100',
    publicBaseUrl: 'http://127.0.0.1:8080',
    document: {
      url: 'http://127.0.0.1:8080/sample.pdf',
      pages: 1,
      read: async () => Buffer.from('%PDF-1.4 sample'),
      saveArtifact: async (name) => ({ key: name }),
      renderTiff: async () => ({ key: 'sample.tiff', pages: 1 }),
    },
  })`
      : '';
  return `// The plugin's own tests, run by \`npm test\` (node --test) with the SDK package's kit: the ${kind}
// conformance suite on the host's real plugin runner, one node:test case per rule.
import { test } from 'node:test';
import { conformance } from '@switchboard/sdk/testing';
import plugin from './index.js';

for (const c of conformance['${kind}']({ plugin${sample} })) test(c.name, () => c.run());
`;
}

export interface ScaffoldOptions {
  kind: ProviderKind;
  id: string;
  /** The folder to create; it must not exist. */
  dir: string;
  hostVersion: string;
  /** The version spec of the `@switchboard/sdk` devDependency: `file:<tarball relative to dir>` or a range. */
  sdk: string;
  /** The host's TypeScript and @types/node ranges, so the SDK's types read as the host built them. */
  toolchain: { typescript: string; '@types/node': string };
}

/**
 * The `@switchboard/sdk` spec of a new plugin folder: the tarball `switchboard sdk pack` wrote
 * into `from` (the current folder) when it is there, by a path relative to the plugin folder,
 * else this host's version range (an SDK from a registry).
 */
export function sdkDependency(dir: string, from: string, hostVersion: string): string {
  const tarball = path.join(from, `switchboard-sdk-${hostVersion}.tgz`);
  if (!existsSync(tarball)) return `^${hostVersion}`;
  return `file:${path.relative(dir, tarball).split(path.sep).join('/')}`;
}

/** Writes a plugin folder that passes `plugins lint` and `plugins test` as generated. Returns the files written. */
export async function scaffoldPlugin(options: ScaffoldOptions): Promise<string[]> {
  const { kind, id, dir } = options;
  if (!PLUGIN_ID.test(id)) throw new Error(`plugin id "${id}" must be 2-63 lowercase letters, digits and dashes`);
  if (existsSync(dir)) throw new Error(`${dir} already exists`);
  const [major, minor] = options.hostVersion.split('.');
  const manifest = {
    manifestVersion: 1,
    id,
    name: id,
    version: '0.1.0',
    description: `A ${kind} provider (generated by switchboard plugins new)`,
    author: 'you',
    host: `^${major}.${minor}.0`,
    provides: [{ kind, contract: kind === 'retrieval' ? 'retrieval@^1.1' : `${kind}@^${CONTRACT_VERSIONS[kind].split('.')[0]}` }],
    capabilities: PROVIDERS[kind].capabilities,
    entry: 'dist/index.js',
    egress: [],
  };
  const tsconfig = {
    compilerOptions: {
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      rootDir: 'src',
      outDir: 'dist',
      strict: true,
      skipLibCheck: true,
      noImplicitAny: false,
      types: ['node'],
    },
    include: ['src'],
  };
  const readme = `# ${id}

A ${kind} plugin for Switchboard, generated by \`switchboard plugins new ${kind} ${id}\`. The provider
in \`src/index.ts\` is a stand-in that passes the ${kind} conformance suite${kind === 'retrieval' ? ' (it keeps each collection in a JSON file under its data folder)' : ' (it keeps everything in memory)'};
replace it with calls to your service (list the hosts it calls in \`egress\` of \`manifest.json\`).

- \`npm install\` once: the SDK package \`@switchboard/sdk\` (${options.sdk}), TypeScript and @types/node,
  all dev dependencies. The SDK gives the types and the test kit; a gateway hands the plugin its
  own running SDK, so it is never shipped with the plugin.
- \`npm run build\` compiles \`src/\` to \`dist/\`; \`dist/index.js\` is what the host loads.
- \`npm test\` builds, then runs \`dist/plugin.test.js\` with \`node --test\`: the ${kind} conformance
  suite from \`@switchboard/sdk/testing\`, on the host's own plugin runner.
- \`npm run lint\` type-checks and checks \`manifest.json\` as a host of the SDK's version loads it
  (\`switchboard-sdk lint\`).
- Ship: \`switchboard plugins pack .\` writes \`${id}-<version>.tgz\`; \`switchboard plugins sign\` signs
  it; \`switchboard plugins install\` (or \`POST /plugin-registry/install\`) installs it into a
  running gateway. See the host's docs/sdk-guide.md.
`;
  const files: Record<string, string> = {
    'manifest.json': JSON.stringify(manifest, null, 2) + '\n',
    'package.json':
      JSON.stringify(
        {
          name: id,
          version: '0.1.0',
          private: true,
          type: 'module',
          scripts: { build: 'tsc -p .', test: 'tsc -p . && node --test dist/plugin.test.js', lint: 'tsc -p . --noEmit && switchboard-sdk lint manifest.json' },
          devDependencies: { '@switchboard/sdk': options.sdk, ...options.toolchain },
        },
        null,
        2,
      ) + '\n',
    'tsconfig.json': JSON.stringify(tsconfig, null, 2) + '\n',
    'src/index.ts': indexSource(kind, id),
    'src/plugin.test.ts': testSource(kind),
    'dist/index.js': indexSource(kind, id),
    'dist/plugin.test.js': testSource(kind),
    'README.md': readme,
  };
  for (const [name, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await writeFile(path.join(dir, name), text);
  }
  return Object.keys(files);
}
