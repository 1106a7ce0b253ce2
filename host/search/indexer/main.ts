import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { RetrievalDocument, RetrievalWriteSession } from '../../../core/sdk/index.js';
import { LlmGatewayClient } from '../../llm/gateway-client.js';
import { chunkFile } from '../chunking/chunk-file.js';
import { languageOf } from '../chunking/languages.js';
import type { RunCounts } from '../index-run-store.js';
import { isBinary, looksMinified, walkRepository } from './file-walk.js';
import { loadBackend } from './load-backend.js';
import type { IndexJob, IndexerMessage } from './protocol.js';

/**
 * The indexer child process: walks the repository, re-chunks files whose content hash changed,
 * removes files that left, and commits everything in one write session, so searches see the
 * old index until the new one is complete. Progress goes to the supervisor over IPC.
 */
const send = (message: IndexerMessage) => process.send?.(message);

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
  const backend = await loadBackend(job.backend);
  let session: RetrievalWriteSession | undefined;
  try {
    if (!backend.provider.openSession) throw new Error(`retrieval backend "${job.backend.pluginId}" does not support write sessions (contract retrieval@1.1)`);
    session = await backend.provider.openSession(job.repo);
    const known = new Map((await session.sources()).map((s) => [s.path, s.hash]));
    send({ type: 'progress', kind: known.size ? 'incremental' : 'full', counts: { ...counts } });
    const walked = await walkRepository(job.repoDir, { maxBytes: job.maxFileBytes, skipDependencies: !job.includeDependencies });
    counts.files_skipped = walked.skipped;
    const embedder = job.embedding ? new LlmGatewayClient({ baseUrl: job.embedding.baseUrl, ...(job.embedding.apiKey ? { apiKey: job.embedding.apiKey } : {}) }) : undefined;
    const seen = new Set<string>();
    for (const file of walked.files) {
      counts.files_seen++;
      const content = await readFile(file.abs).catch(() => undefined);
      if (!content || isBinary(content)) {
        counts.files_skipped++;
        continue;
      }
      const hash = createHash('sha256').update(content).digest('hex');
      seen.add(file.rel);
      if (known.get(file.rel) === hash) continue;
      const text = content.toString('utf8');
      const language = languageOf(file.rel);
      if (looksMinified(text)) {
        counts.files_skipped++;
        seen.delete(file.rel);
        continue;
      }
      const chunks = await chunkFile(text, language, job.chunk);
      const documents: RetrievalDocument[] = chunks.map((c) => ({
        id: `${file.rel}#${c.startLine}-${c.endLine}`,
        text: c.text,
        metadata: { path: file.rel, language, start_line: c.startLine, end_line: c.endLine, ...(c.symbol ? { symbol: c.symbol } : {}), kind: c.kind },
      }));
      if (embedder && job.embedding && documents.length) {
        for (let i = 0; i < documents.length; i += job.embedding.batchSize) {
          const batch = documents.slice(i, i + job.embedding.batchSize);
          // The path travels with the text, so a chunk's meaning includes where it lives.
          const vectors = await embedder.embed(job.embedding.model, batch.map((d) => `${file.rel}\n${d.text}`), { identity: { sessionId: `index-${job.runId}`, spendMetadata: { kind: 'index', repo: job.repo, run_id: job.runId } } });
          batch.forEach((d, k) => (d.vector = vectors[k]!));
          counts.vectors += batch.length;
        }
      }
      await session.replaceSource(file.rel, hash, documents);
      counts.files_changed++;
      counts.chunks += documents.length;
      progress();
    }
    const removed = [...known.keys()].filter((p) => !seen.has(p));
    if (removed.length) await session.deleteSources(removed);
    counts.files_removed = removed.length;
    progress(true);
    const stats = await session.commit();
    session = undefined;
    // Totals of the index after the run; files_changed / chunks said what this run wrote.
    counts.vectors = stats.vectors;
    return counts;
  } finally {
    await session?.abort().catch(() => {});
    await backend.stop().catch(() => {});
  }
}

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
