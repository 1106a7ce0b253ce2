import path from 'node:path';
import { writeWordCheckpoint } from '../../plugins/judge-selfhosted/server/word-checkpoint.js';

/** The words the tiny tokenizer knows; anything else is [UNK] (id 0). */
export const VOCAB = ['[UNK]', 'yes', 'no', 'filler', 'ja', 'nein', 'oui', 'non'] as const;

/**
 * Writes a real, tiny checkpoint `<root>/<name>` with the judge server's word-level writer (the one the
 * judge server's demo checkpoint uses). `weights` gives a word's [no, yes] logits; other words
 * are [0, 0].
 */
export function writeTinyCheckpoint(root: string, name: string, weights: Partial<Record<(typeof VOCAB)[number], [number, number]>>, meta: Record<string, unknown> = {}): string {
  return writeWordCheckpoint(path.join(root, name), VOCAB, weights as Record<string, [number, number]>, meta);
}
