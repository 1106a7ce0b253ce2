import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { Chunk } from '../chunking/chunk.js';
import type { ChunkTask } from './chunk-worker.js';
import type { SymbolOutline } from '../../code-index/symbol-outline.js';

export type FileOutcome =
  | { id: number; type: 'skipped' }
  | { id: number; type: 'unchanged'; hash: string }
  | { id: number; type: 'chunked'; hash: string; chunks: Chunk[]; terms: ChunkTerms; content: string; outline: SymbolOutline }
  | { id: number; type: 'error'; message: string };

/**
 * Index terms of a file's chunks, made in the chunking thread (contract retrieval@1.3 `terms`), so
 * the writer thread only inserts: the file's path terms, and each chunk's body and symbol terms.
 */
export interface ChunkTerms {
  path: string;
  bodies: string[];
  symbols: Array<string | null>;
}

/** Tasks in flight per thread: enough to hide file reads behind parsing. */
const IN_FLIGHT_PER_THREAD = 4;

/**
 * Chunking threads of the indexer child (one per core): the child's main thread writes the index
 * while these parse, so the two kinds of work overlap on a multi-core machine.
 */
export class ChunkPool {
  private readonly workers: Worker[];
  private readonly pending = new Map<number, { resolve: (o: FileOutcome) => void; reject: (e: Error) => void }>();
  private next = 0;
  private failed?: Error;

  /** Threads a pool gets by default: one per core, at most 4. */
  static defaultThreads(): number {
    return Math.max(1, Math.min(4, availableParallelism()));
  }

  /** Tasks a default pool takes at once. */
  static defaultCapacity(): number {
    return ChunkPool.defaultThreads() * IN_FLIGHT_PER_THREAD;
  }

  constructor(threads = ChunkPool.defaultThreads()) {
    this.workers = Array.from({ length: threads }, () => {
      const w = new Worker(new URL('./chunk-worker.js', import.meta.url));
      w.on('message', (o: FileOutcome) => {
        const p = this.pending.get(o.id);
        this.pending.delete(o.id);
        p?.resolve(o);
      });
      w.on('error', (err) => {
        this.failed = err;
        for (const p of this.pending.values()) p.reject(err);
        this.pending.clear();
      });
      return w;
    });
  }

  get capacity(): number {
    return this.workers.length * IN_FLIGHT_PER_THREAD;
  }

  run(task: Omit<ChunkTask, 'id'>): Promise<FileOutcome> {
    if (this.failed) return Promise.reject(this.failed);
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.workers[id % this.workers.length]!.postMessage({ ...task, id } satisfies ChunkTask);
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}
