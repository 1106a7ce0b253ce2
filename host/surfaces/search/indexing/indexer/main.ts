import type { RetrievalDocument, RetrievalWriteSession } from '../../../../../core/sdk/index.js';
import { OutboundGuard } from '../../../../../core/kernel/egress.js';
import type { LlmGatewayClient } from '../../../../platform/llm/gateway-client.js';
import { IpcCensus, type CensusParentMessage } from '../../../../platform/llm/ipc-census.js';
import { languageOf } from '../chunking/languages.js';
import type { RunCounts } from '../index-run-store.js';
import { walkRepositorySync, type DirListing } from './file-walk.js';
import { enrichMessages, enrichmentText } from './enrichment.js';
import { ChunkPool, type FileOutcome } from './chunk-pool.js';
import { SKIPPED_HASH, readStamps, sameStamp, stampsFile, writeStamps, type Stamp } from './file-stamps.js';
import { loadBackend } from './load-backend.js';
import { jobCorpus, type IndexJob, type IndexerMessage } from './protocol.js';
import { codeIndexFile, openCodeIndexDb } from '../../code-index/code-index-db.js';
import { CodeIndexWriter } from '../../code-index/code-index-writer.js';

/**
 * The indexer child process: walks the repository, re-chunks files whose content hash changed,
 * removes files that left, and commits everything in one write session, so searches see the
 * old index until the new one is complete. Progress goes to the supervisor over IPC.
 */
const send = (message: IndexerMessage) => process.send?.(message);
const census = new IpcCensus(send);

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
  let codeDb: ReturnType<typeof openCodeIndexDb> | undefined;
  let code: CodeIndexWriter | undefined;
  try {
    if (!backend.provider.openSession) throw new Error(`retrieval backend "${job.backend.pluginId}" does not support write sessions (contract retrieval@1.1)`);
    session = await backend.provider.openSession(jobCorpus(job));
    const knownHashes = new Map((await session.sources()).map((s) => [s.path, s.hash]));
    // The code index beside it, written in its own transaction and committed after the session.
    codeDb = openCodeIndexDb(codeIndexFile(job.backend.dataDir, job.repo, job.rev));
    code = new CodeIndexWriter(codeDb);
    const codeHashes = code.hashes();
    code.begin();
    send({ type: 'progress', kind: knownHashes.size ? 'incremental' : 'full', counts: { ...counts } });
    const stampFile = stampsFile(job.backend.dataDir, jobCorpus(job));
    const cache = await readStamps(stampFile);
    const oldStamps = cache.files;
    const dirs = new Map<string, DirListing>();
    // Synchronous: nothing else runs on this thread yet. Unchanged directories are not listed again.
    const walked = walkRepositorySync(job.repoDir, { maxBytes: job.maxFileBytes, skipDependencies: !job.includeDependencies, listings: { previous: cache.dirs, next: dirs, startedMs: Date.now() } });
    counts.files_skipped = walked.skipped;
    // The gateway client (and the OpenAI SDK under it) is loaded only by runs that call a model.
    const llm = job.embedding ? await import('../../../../platform/llm/gateway-client.js') : undefined;
    const embedder: LlmGatewayClient | undefined = llm && job.embedding ? new llm.LlmGatewayClient({ ...job.embedding, guard: outbound }) : undefined;
    const sink = job.census ? census : undefined;
    const embedIdentity = llm?.runIdentity(job.runId, job.repo, 'index_embeddings', sink);
    const kgIdentity = llm?.runIdentity(job.runId, job.repo, 'semantic_kg', sink);
    const indexedAt = new Date().toISOString();
    const stamps = new Map<string, Stamp>();
    // Whether the cache needs writing: a run that found everything as stamped leaves it as it is.
    let stampsMoved = false;
    const record = (rel: string, next: Stamp) => {
      const old = oldStamps.get(rel);
      if (!old || old[0] !== next[0] || old[1] !== next[1] || old[2] !== next[2] || old[3] !== next[3]) stampsMoved = true;
      stamps.set(rel, next);
    };
    const seen = new Set<string>();
    // Started at the first file that needs reading: a run with nothing changed loads no parser.
    const chunker = () => (pool ??= new ChunkPool());
    const capacity = ChunkPool.defaultCapacity();
    // Files go to the chunking threads ahead of the writer, at most `capacity` in flight, and
    // come back in walk order so runs are deterministic.
    const inFlight: Array<{ file: (typeof walked.files)[number]; outcome: FileOutcome | Promise<FileOutcome> }> = [];
    let nextFile = 0;
    const refill = () => {
      while (inFlight.length < capacity && nextFile < walked.files.length) {
        const file = walked.files[nextFile++]!;
        const known = knownHashes.get(file.rel);
        const stamp = oldStamps.get(file.rel);
        const same = stamp !== undefined && sameStamp(stamp, file);
        // A binary or minified file passed over last time is passed over again unread while its stamp holds.
        if (same && stamp[2] === SKIPPED_HASH) {
          inFlight.push({ file, outcome: { id: -1, type: 'skipped' } });
          continue;
        }
        const unchanged = same && known !== undefined && stamp[2] === known && codeHashes.get(file.rel) === known;
        // A file whose stamp moved is chunked again even when its content did not change, so its
        // chunks carry the new stamp (a hit is stale exactly when its file's stamp moved since).
        const outcome: FileOutcome | Promise<FileOutcome> = unchanged
          ? { id: -1, type: 'unchanged', hash: known }
          : chunker().run({ abs: file.abs, rel: file.rel, language: languageOf(file.rel), limits: job.chunk });
        inFlight.push({ file, outcome });
      }
    };
    refill();
    while (inFlight.length) {
      const { file, outcome: pendingOutcome } = inFlight.shift()!;
      // Unchanged files are settled already: no await, so 10,000 of them cost no event-loop turns.
      const outcome = pendingOutcome instanceof Promise ? await pendingOutcome : pendingOutcome;
      refill();
      counts.files_seen++;
      if (outcome.type === 'error') throw new Error(`${file.rel}: ${outcome.message}`);
      if (outcome.type === 'skipped') {
        counts.files_skipped++;
        if (codeHashes.has(file.rel)) code.remove(file.rel);
        record(file.rel, [file.size, file.mtimeMs, SKIPPED_HASH, file.ino]);
        continue;
      }
      seen.add(file.rel);
      record(file.rel, [file.size, file.mtimeMs, outcome.hash, file.ino]);
      if (outcome.type === 'unchanged') {
        progress();
        continue;
      }
      const language = languageOf(file.rel);
      const made = outcome.terms;
      const documents: RetrievalDocument[] = outcome.chunks.map((c, i) => ({
        id: `${file.rel}#${c.startLine}-${c.endLine}`,
        text: c.text,
        // Made in the chunking thread (contract 1.3); a backend that does not use them makes its own.
        terms: { path: made.path, body: made.bodies[i]!, ...(made.symbols[i] ? { symbol: made.symbols[i]! } : {}) },
        metadata: {
          path: file.rel, language, start_line: c.startLine, end_line: c.endLine, ...(c.symbol ? { symbol: c.symbol } : {}), kind: c.kind,
          // Freshness: the run that wrote the chunk, when, and the file's stamp then (hits compare it with a stat).
          run_id: job.runId, indexed_at: indexedAt, file_size: file.size, file_mtime_ms: file.mtimeMs,
        },
      }));
      if (embedder && job.embedding && documents.length) {
        for (let i = 0; i < documents.length; i += job.embedding.batchSize) {
          const batch = documents.slice(i, i + job.embedding.batchSize);
          // The path travels with the text, so a chunk's meaning includes where it lives.
          const vectors = await embedder.embed(job.embedding.model, batch.map((d) => `${file.rel}\n${d.text}`), { identity: embedIdentity!, ...(job.embeddingAttempts ? { attempts: job.embeddingAttempts } : {}) });
          batch.forEach((d, k) => (d.vector = vectors[k]!));
          counts.vectors += batch.length;
        }
      }
      if (embedder && job.enrich && job.generation) {
        for (const d of documents) {
          const answer = await embedder.chat({ model: job.generation.model, messages: enrichMessages(file.rel, d.text), maxTokens: 300, temperature: 0, identity: kgIdentity!, timeoutMs: job.generation.timeoutMs });
          // Its own field: a backend that supports it indexes the words with their own weight (contract 1.2).
          const enrichment = enrichmentText(answer.text);
          if (enrichment) d.enrichment = enrichment;
        }
      }
      await session.replaceSource(file.rel, outcome.hash, documents);
      code.replace({ path: file.rel, language, hash: outcome.hash, content: outcome.content, outline: outcome.outline });
      counts.files_changed++;
      counts.chunks += documents.length;
      progress();
    }
    const removed = [...new Set([...knownHashes.keys(), ...codeHashes.keys()])].filter((p) => !seen.has(p));
    for (const p of removed) code.remove(p);
    const removedSources = removed.filter((p) => knownHashes.has(p));
    if (removedSources.length) await session.deleteSources(removedSources);
    counts.files_removed = removedSources.length;
    progress(true);
    const stats = await session.commit();
    session = undefined;
    code.commit();
    const dirsMoved = dirs.size !== cache.dirs.size || [...dirs].some(([rel, listing]) => cache.dirs.get(rel) !== listing);
    if (stampsMoved || dirsMoved || stamps.size !== oldStamps.size || cache.backend !== job.backend.pluginId) {
      await writeStamps(stampFile, { files: stamps, dirs, backend: job.backend.pluginId }).catch(() => {}); // only a cache: the next run reads files instead
    }
    // Totals of the index after the run; files_changed / chunks said what this run wrote.
    counts.vectors = stats.vectors;
    return counts;
  } finally {
    // Reached only by a living child: every request it admitted has settled (each await above
    // settles before it returns), so the census closes. A killed child never gets here.
    if (job.census) census.close();
    await pool?.close();
    await session?.abort().catch(() => {});
    code?.rollback();
    codeDb?.close();
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
