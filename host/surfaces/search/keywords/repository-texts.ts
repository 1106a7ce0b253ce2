import { readFile } from 'node:fs/promises';
import { isBinary, looksMinified, walkRepository } from '../indexing/indexer/file-walk.js';
import type { SourceText } from './keyword-builder.js';

/**
 * The files of a repository as the indexer sees them (.gitignore, size limit, no binaries,
 * lockfiles or minified bundles), read one at a time so a large repository is never all in memory.
 */
export async function* repositoryTexts(dir: string, maxBytes: number): AsyncGenerator<SourceText> {
  const { files } = await walkRepository(dir, { maxBytes });
  for (const file of files) {
    const content = await readFile(file.abs).catch(() => undefined);
    if (!content || isBinary(content)) continue;
    const text = content.toString('utf8');
    if (looksMinified(text)) continue;
    yield { path: file.rel, text };
  }
}
