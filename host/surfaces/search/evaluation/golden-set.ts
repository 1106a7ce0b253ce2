import { readFile } from 'node:fs/promises';
import { z } from 'zod';

const REPO_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

export const GoldenQuestion = z
  .object({
    q: z.string().trim().min(1, 'must be a non-empty question').max(1000),
    repo: z.string().regex(REPO_NAME, 'must be a plain repository name').optional(),
    expect_paths: z.array(z.string().min(1, 'must not be empty')).min(1, 'must list at least one path substring'),
  })
  .strict();
export type GoldenQuestion = z.infer<typeof GoldenQuestion>;

export const GoldenSet = z.array(GoldenQuestion).min(1, 'must hold at least one question').max(10_000);

/** A golden file that is not JSON or does not follow `[{q, repo, expect_paths}]`. */
export class GoldenSetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GoldenSetError';
  }
}

/** Validates a parsed golden set; the error names the first bad entries by index and field. */
export function parseGoldenSet(value: unknown, source = 'golden set'): GoldenQuestion[] {
  const result = GoldenSet.safeParse(value);
  if (result.success) return result.data;
  const problems = result.error.issues.slice(0, 5).map((issue) => {
    const [index, ...field] = issue.path;
    if (index === undefined) return issue.message.replace(/^Invalid input: expected array.*/, 'must be a JSON array of {q, repo, expect_paths}');
    return `entry ${String(index)}${field.length ? `.${field.join('.')}` : ''}: ${issue.message}`;
  });
  throw new GoldenSetError(`${source}: ${problems.join('; ')}`);
}

/** Reads and validates a golden file. */
export async function readGoldenFile(file: string): Promise<GoldenQuestion[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new GoldenSetError(`${file}: cannot read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new GoldenSetError(`${file}: not valid JSON (${(err as Error).message})`);
  }
  return parseGoldenSet(value, file);
}
