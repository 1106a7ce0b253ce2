import type { RetrievalDocument, RetrievalSource, RetrievalStats, RetrievalWriteSession } from '../contracts/retrieval.js';

/** What a backend brings to a write session: its writer (sync or async) and how the session ends. */
export interface WriteSessionParts {
  sources(): RetrievalSource[] | Promise<RetrievalSource[]>;
  replaceSource(path: string, hash: string, documents: RetrievalDocument[]): void | Promise<void>;
  deleteSources(paths: string[]): number | Promise<number>;
  /**
   * Makes the writes visible and answers the collection's counts. It ends the session either
   * way: when it fails, the backend has rolled back and let go of the session's connection.
   */
  commit(): RetrievalStats | Promise<RetrievalStats>;
  /** Drops the writes and lets go of the session's connection. */
  rollback(): void | Promise<void>;
}

/**
 * A RetrievalWriteSession over a backend's writer: every call after the end (a commit, failed or
 * not, or an abort) is refused, and an abort after the end does nothing.
 */
export function writeSession(parts: WriteSessionParts): RetrievalWriteSession {
  let done = false;
  const live = () => {
    if (done) throw new Error('the write session is closed');
  };
  return {
    async sources() {
      live();
      return parts.sources();
    },
    async replaceSource(path, hash, documents) {
      live();
      await parts.replaceSource(path, hash, documents);
    },
    async deleteSources(paths) {
      live();
      return { deleted: await parts.deleteSources(paths) };
    },
    async commit() {
      live();
      done = true;
      return parts.commit();
    },
    async abort() {
      if (done) return;
      done = true;
      await parts.rollback();
    },
  };
}
