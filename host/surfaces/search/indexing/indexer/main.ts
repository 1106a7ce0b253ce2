import type { RetrievalDocument, RetrievalWriteSession } from '../../../../../core/sdk/index.js';
import { OutboundGuard } from '../../../../../core/kernel/egress.js';
import { LlmGatewayClient, runIdentity } from '../../../../platform/llm/gateway-client.js';
import { IpcCensus, type CensusParentMessage } from '../../../../platform/llm/ipc-census.js';
import { languageOf } from '../chunking/languages.js';
import type { RunCounts } from '../index-run-store.js';
import { walkRepository } from './file-walk.js';
import { ChunkPool, type FileOutcome } from './chunk-pool.js';
import { readStamps, stampsFile, writeStamps, type Stamp } from './file-stamps.js';
import { loadBackend } from './load-backend.js';
import type { IndexJob, IndexerMessage } from './protocol.js';

/**
 * The indexer child process: walks the repository, re-chunks files whose content hash changed,
 * removes files that left, and commits everything in one write session, so searches see the
 * old index until the new one is complete. Progress goes to the supervisor over IPC.
 */
const send = (message: IndexerMessage) => process.send?.(message);
const census = new IpcCensus(send);

/** The small per-chunk prompt of the semantic_kg lane: entities and relations of one chunk. */
function kgMessages(path: string, text: string) {
  return [
    { role: 'system' as const, content: 'List the entities (functions, types, modules, services) and relations (calls, imports, extends, reads, writes) in this code. Answer JSON: {"entities":[...],"relations":[[from,relation,to],...]}.' },
    { role: 'user' as const, content: `${path}\n${text.slice(0, 4000)}` },
  ];
}

async function run(job: IndexJob): Promise<RunCounts> {
  const counts: RunCounts = { files_seen: 0, files_changed: 0, files_removed: 0, files_skipped: 0, chunks: 0, vectors: 0 };
  let lastSent = 0;
  const progress = (force = false) => {
    const now = Date.now();
    if (force || now - lastSent > 250) {
      lastSent = now;
      send({ type: 'progress', counts: { ...counts } });
    }
  };
  // The child's own guard of run-time URLs, with the parent's OUTBOUND_ALLOW_HOSTS.
  const outbound = new OutboundGuard(() => job.outboundAllowHosts ?? []);
  const backend = await loadBackend(job.backend, process.env, outbound);
  let session: RetrievalWriteSession | undefined;
  let pool: ChunkPool | undefined;
  try {
    if (!backend.provider.openSession) throw new Error(`retrieval backend "${job.backend.pluginId}" does not support write sessions (contract retrieval@1.1)`);
    session = await backend.provider.openSession(job.repo);
    const knownHashes = new Map((await session.sources()).map((s) => [s.path, s.hash]));
    send({ type: 'progress', kind: knownHashes.size ? 'incremental' : 'full', counts: { ...counts } });
    const walked = await walkRepository(job.repoDir, { maxBytes: job.maxFileBytes, skipDependencies: !job.includeDependencies });
    counts.files_skipped = walked.skipped;
    const embedder = job.embedding ? new LlmGatewayClient({ ...job.embedding, guard: outbound }) : undefined;
    const sink = job.census ? census : undefined;
    const embedIdentity = runIdentity(job.runId, job.repo, 'index_embeddings', sink);
    const kgIdentity = runIdentity(job.runId, job.repo, 'semantic_kg', sink);
    const stampFile = stampsFile(job.backend.dataDir, job.repo);
    const oldStamps = await readStamps(stampFile);
    const stamps = new Map<string, Stamp>();
    const seen = new Set<string>();
    pool = new ChunkPool();
    const chunker = pool;
    // Files go to the chunking threads ahead of the writer, at most `capacity` in flight, and
    // come back in walk order so runs are deterministic.
    const inFlight: Array<{ file: (typeof walked.files)[number]; outcome: Promise<FileOutcome> }> = [];
    let nextFile = 0;
    const refill = () => {
      while (inFlight.length < chunker.capacity && nextFile < walked.files.length) {
        const file = walked.files[nextFile++]!;
        const known = knownHashes.get(file.rel);
        const stamp = oldStamps.get(file.rel);
        const unchanged = known !== undefined && stamp && stamp[0] === file.size && stamp[1] === file.mtimeMs && stamp[2] === known;
        const outcome: Promise<FileOutcome> = unchanged
          ? Promise.resolve({ id: -1, type: 'unchanged', hash: known })
          : chunker.run({ abs: file.abs, language: languageOf(file.rel), limits: job.chunk, ...(known ? { knownHash: known } : {}) });
        inFlight.push({ file, outcome });
      }
    };
    refill();
    while (inFlight.length) {
      const { file, outcome: pendingOutcome } = inFlight.shift()!;
      const outcome = await pendingOutcome;
      refill();
      counts.files_seen++;
      if (outcome.type === 'error') throw new Error(`${file.rel}: ${outcome.message}`);
      if (outcome.type === 'skipped') {
        counts.files_skipped++;
        continue;
      }
      seen.add(file.rel);
      stamps.set(file.rel, [file.size, file.mtimeMs, outcome.hash]);
      if (outcome.type === 'unchanged') {
        progress();
        continue;
      }
      const language = languageOf(file.rel);
      const documents: RetrievalDocument[] = outcome.chunks.map((c) => ({
        id: `${file.rel}#${c.startLine}-${c.endLine}`,
        text: c.text,
        metadata: { path: file.rel, language, start_line: c.startLine, end_line: c.endLine, ...(c.symbol ? { symbol: c.symbol } : {}), kind: c.kind },
      }));
      if (embedder && job.embedding && documents.length) {
        for (let i = 0; i < documents.length; i += job.embedding.batchSize) {
          const batch = documents.slice(i, i + job.embedding.batchSize);
          // The path travels with the text, so a chunk's meaning includes where it lives.
          const vectors = await embedder.embed(job.embedding.model, batch.map((d) => `${file.rel}\n${d.text}`), { identity: embedIdentity, ...(job.embeddingAttempts ? { attempts: job.embeddingAttempts } : {}) });
          batch.forEach((d, k) => (d.vector = vectors[k]!));
          counts.vectors += batch.length;
        }
      }
      if (embedder && job.enrich && job.generation) {
        for (const d of documents) {
          const answer = await embedder.chat({ model: job.generation.model, messages: kgMessages(file.rel, d.text), maxTokens: 300, temperature: 0, identity: kgIdentity, timeoutMs: job.generation.timeoutMs });
          d.metadata = { ...d.metadata, kg: answer.text.slice(0, 2000) };
        }
      }
      await session.replaceSource(file.rel, outcome.hash, documents);
      counts.files_changed++;
      counts.chunks += documents.length;
      progress();
    }
    const removed = [...knownHashes.keys()].filter((p) => !seen.has(p));
    if (removed.length) await session.deleteSources(removed);
    counts.files_removed = removed.length;
    progress(true);
    const stats = await session.commit();
    session = undefined;
    await writeStamps(stampFile, stamps).catch(() => {}); // only a cache: the next run reads files instead
    // Totals of the index after the run; files_changed / chunks said what this run wrote.
    counts.vectors = stats.vectors;
    return counts;
  } finally {
    // Reached only by a living child: every request it admitted has settled (each await above
    // settles before it returns), so the census closes. A killed child never gets here.
    if (job.census) census.close();
    await pool?.close();
    await session?.abort().catch(() => {});
    await backend.stop().catch(() => {});
    await outbound.close();
  }
}

process.on('message', (message: CensusParentMessage | IndexJob) => {
  if ('type' in message && (message.type === 'admitted' || message.type === 'admit_failed')) census.receive(message);
});
process.once('message', (job: IndexJob) => {
  run(job).then(
    (counts) => {
      send({ type: 'done', counts });
      process.disconnect?.();
    },
    (err: unknown) => {
      send({ type: 'failed', reason: (err as Error)?.message ?? String(err) });
      process.disconnect?.();
      process.exitCode = 1;
    },
  );
});
