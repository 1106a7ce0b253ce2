import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CONTRACT_VERSIONS, PROVIDER_KINDS, type ProviderKind } from '../../core/sdk/index.js';

/**
 * The provider of each kind as a working in-memory stand-in: it passes the kind's conformance
 * suite as generated, so an author starts from green and replaces it with real calls.
 * Written without type annotations, the same text is src/index.ts and the prebuilt dist/index.js.
 */
const PROVIDERS: Record<ProviderKind, { imports: string; settings?: string; capabilities: string[]; body: string }> = {
  fax: {
    imports: `import { definePlugin } from 'switchboard/sdk';`,
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
    imports: `import { Readable } from 'node:stream';\nimport { assertStorageKey, definePlugin, StorageNotFoundError } from 'switchboard/sdk';`,
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
    imports: `import { existsSync } from 'node:fs';\nimport { mkdir, readFile, rename, writeFile } from 'node:fs/promises';\nimport path from 'node:path';\nimport { dataPath, definePlugin, z } from 'switchboard/sdk';`,
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
    imports: `import { definePlugin } from 'switchboard/sdk';`,
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
    imports: `import { definePlugin } from 'switchboard/sdk';`,
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
  return `// The plugin's own tests, run by \`npm test\` (\`switchboard plugins test .\`) with the host's SDK:
// the ${kind} conformance suite on the host's real plugin runner, one node:test case per rule.
import { test } from 'node:test';
import { conformance } from 'switchboard/sdk/testing';
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
  /** The host's package root, for the SDK types in tsconfig paths. */
  hostRoot: string;
}

/** The host's command as a plugin's npm script runs it: by path, so no `npm link` is needed. */
export function hostCommand(hostRoot: string): string {
  return `node ${JSON.stringify(path.join(hostRoot, 'host/bin/switchboard.mjs'))}`;
}

/** Writes a plugin folder that passes `plugins lint` and `plugins test` as generated. Returns the files written. */
export async function scaffoldPlugin(options: ScaffoldOptions): Promise<string[]> {
  const { kind, id, dir, hostRoot } = options;
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
  // The same TypeScript and Node types the host builds with, so the SDK's types read the same.
  const hostDev = (JSON.parse(await readFile(path.join(hostRoot, 'package.json'), 'utf8')) as { devDependencies?: Record<string, string> }).devDependencies ?? {};
  const devDependencies = { typescript: hostDev.typescript ?? '*', '@types/node': hostDev['@types/node'] ?? '*' };
  const sdk = (sub: string) => [path.join(hostRoot, 'dist/core', sub)];
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
      paths: {
        'switchboard/sdk': sdk('sdk/index.d.ts'),
        'switchboard/sdk/testing': sdk('testing/index.d.ts'),
        'switchboard/sdk/fax': sdk('sdk/fax/index.d.ts'),
        'switchboard/sdk/retrieval': sdk('sdk/retrieval/index.d.ts'),
        'switchboard/sdk/judge': sdk('sdk/judge/index.d.ts'),
      },
    },
    include: ['src'],
  };
  const readme = `# ${id}

A ${kind} plugin for Switchboard, generated by \`switchboard plugins new ${kind} ${id}\`. The provider
in \`src/index.ts\` is an in-memory stand-in that passes the ${kind} conformance suite; replace it
with calls to your service (list the hosts it calls in \`egress\` of \`manifest.json\`).

- \`npm install\` once: TypeScript and @types/node, pinned to the host's, as dev dependencies.
- \`npm run build\` (or \`npx tsc -p .\`) compiles \`src/\` to \`dist/\`; \`dist/index.js\` is what the
  host loads. The generated \`dist/\` is the stand-in and its test, prebuilt.
- \`npm test\` builds, then runs \`switchboard plugins test .\` of the host at ${hostRoot}: the
  manifest check, the ${kind} conformance suite through the host's loader, and every
  \`*.test.js\` of the folder (\`src/plugin.test.ts\` compiled) with the host's
  \`switchboard/sdk/testing\`. Nothing of the host is installed here.
- \`npm run lint\` checks \`manifest.json\` as the host would.
- Ship: put this folder in a directory on the gateway's \`PLUGINS_PATH\`.

The SDK types come from the host at ${hostRoot} (\`paths\` in \`tsconfig.json\`); see the host's
docs/sdk-guide.md.
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
          scripts: { build: 'tsc -p .', test: `tsc -p . && ${hostCommand(hostRoot)} plugins test .`, lint: `${hostCommand(hostRoot)} plugins lint manifest.json` },
          devDependencies,
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
