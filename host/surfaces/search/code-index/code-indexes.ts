import { readdirSync } from 'node:fs';
import path from 'node:path';
import { CodeIndexReader } from './code-index-reader.js';
import { codeIndexFile } from './code-index-db.js';
import { searchErrors } from '../search-errors.js';

/** The code indexes under DATA_DIR/code-index, one reader per revision file, opened on first use. */
export class CodeIndexes {
  private readonly readers = new Map<string, CodeIndexReader>();

  constructor(
    private readonly dataDir: string,
    /** A git repository's default branch: its index is the repository's own, so rev:<it> reads that. */
    private readonly defaultBranch: (repo: string) => string | undefined = () => undefined,
  ) {}

  /** The reader of a repository's revision (its working tree when rev is absent), or undefined when none was built. */
  find(repo: string, rev?: string): CodeIndexReader | undefined {
    const file = codeIndexFile(this.dataDir, repo, rev !== undefined && rev === this.defaultBranch(repo) ? undefined : rev);
    let reader = this.readers.get(file);
    if (!reader) {
      reader = CodeIndexReader.open(file);
      if (reader) this.readers.set(file, reader);
    }
    return reader;
  }

  /** As find, or 409 code_index_missing / 404 revision_not_indexed. */
  get(repo: string, rev?: string): CodeIndexReader {
    const reader = this.find(repo, rev);
    if (reader) return reader;
    if (rev) throw searchErrors.error('revision_not_indexed', { repo, rev, indexed: this.revisions(repo) });
    throw searchErrors.error('code_index_missing', { repo });
  }

  /** Revisions of a repository with an index file (by file name). */
  revisions(repo: string): string[] {
    let names: string[] = [];
    try {
      names = readdirSync(path.join(this.dataDir, 'code-index'));
    } catch {
      return [];
    }
    const revs = names.filter((n) => n.startsWith(`${repo}@`) && n.endsWith('.sqlite')).map((n) => n.slice(repo.length + 1, -'.sqlite'.length));
    const fallback = this.defaultBranch(repo);
    return fallback && names.includes(`${repo}.sqlite`) ? [fallback, ...revs] : revs;
  }

  /** Forgets a revision's reader (its file is about to be removed or rebuilt). */
  forget(repo: string, rev?: string): void {
    const file = codeIndexFile(this.dataDir, repo, rev);
    this.readers.get(file)?.close();
    this.readers.delete(file);
  }

  close(): void {
    for (const r of this.readers.values()) r.close();
    this.readers.clear();
  }
}
