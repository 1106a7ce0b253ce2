import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { indexPathTerms, indexTerms } from '../../../../../core/sdk/retrieval/code-terms.js';
import { chunkFile } from '../chunking/chunk-file.js';
import { symbolOutline } from '../../code-index/symbol-outline.js';
import type { ChunkLimits } from '../chunking/chunk.js';
import type { Language } from '../chunking/languages.js';
import { isBinary, looksMinified } from './file-walk.js';
import type { FileOutcome } from './chunk-pool.js';

/** A thread of the indexer: reads, hashes and chunks files (tree-sitter parsing is the costly part). */
export interface ChunkTask {
  id: number;
  abs: string;
  /** The path relative to the repository root: its index terms are made here too. */
  rel: string;
  language: Language;
  limits: ChunkLimits;
  /** The hash the index holds; an equal content is not chunked again. */
  knownHash?: string;
}

async function handle(task: ChunkTask): Promise<FileOutcome> {
  // Synchronous: this thread does nothing else meanwhile, and it skips the promise round trips.
  let content: Buffer | undefined;
  try {
    content = readFileSync(task.abs);
  } catch {
    content = undefined;
  }
  if (!content || isBinary(content)) return { id: task.id, type: 'skipped' };
  const hash = createHash('sha256').update(content).digest('hex');
  if (hash === task.knownHash) return { id: task.id, type: 'unchanged', hash };
  const text = content.toString('utf8');
  if (looksMinified(text)) return { id: task.id, type: 'skipped' };
  const chunks = await chunkFile(text, task.language, task.limits);
  // Term making (splitting and stemming) here rather than in the writer thread, which only inserts.
  const terms = { path: indexPathTerms(task.rel), bodies: chunks.map((c) => indexTerms(c.text)), symbols: chunks.map((c) => (c.symbol ? indexTerms(c.symbol) : null)) };
  // The code index (exact search, symbols, navigation) keeps the content and its definitions and identifiers.
  const outline = await symbolOutline(text, task.language);
  return { id: task.id, type: 'chunked', hash, chunks, terms, content: text, outline };
}

parentPort!.on('message', (task: ChunkTask) => {
  handle(task).then(
    (outcome) => parentPort!.postMessage(outcome),
    (err: unknown) => parentPort!.postMessage({ id: task.id, type: 'error', message: (err as Error)?.message ?? String(err) } satisfies FileOutcome),
  );
});
