import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';

/** The checkpoints a self-hosted judge server knows; a request can name nothing else. */
export const CHECKPOINT_NAMES = ['english', 'multilingual', 'typed-decisions'] as const;
export type CheckpointName = (typeof CHECKPOINT_NAMES)[number];

export function isCheckpointName(value: string): value is CheckpointName {
  return (CHECKPOINT_NAMES as readonly string[]).includes(value);
}

/** Tokens of a state the english checkpoint reads; longer states are truncated. */
export const ENGLISH_MAX_TOKENS = 512;

export interface CheckpointFiles {
  name: CheckpointName;
  dir: string;
  model: string;
  tokenizer: string;
  tokenizerConfig: string | undefined;
  /** Most tokens of a state fed to the model (checkpoint.json `max_state_tokens`). */
  maxStateTokens: number;
  /** Index of "yes" in the model's two logits (checkpoint.json `yes_index`, default 1). */
  yesIndex: number;
}

/** Thrown when a checkpoint directory is missing or incomplete. */
export class CheckpointMissingError extends Error {}

/**
 * A checkpoint is a local directory `<root>/<name>/` holding `model.onnx` (a sequence
 * classifier: int64 `input_ids` [1, n], optional `attention_mask`, float `logits` [1, 2]),
 * `tokenizer.json`, optionally `tokenizer_config.json` and `checkpoint.json`. Nothing is
 * downloaded.
 */
export async function locateCheckpoint(root: string, name: CheckpointName): Promise<CheckpointFiles> {
  const dir = path.join(root, name);
  const model = path.join(dir, 'model.onnx');
  const tokenizer = path.join(dir, 'tokenizer.json');
  for (const file of [model, tokenizer]) {
    const info = await stat(file).catch(() => undefined);
    if (!info?.isFile()) throw new CheckpointMissingError(`checkpoint "${name}" is not installed: ${path.basename(file)} missing in ${dir}`);
  }
  const configFile = path.join(dir, 'tokenizer_config.json');
  const tokenizerConfig = (await stat(configFile).catch(() => undefined))?.isFile() ? configFile : undefined;
  let meta: { max_state_tokens?: unknown; yes_index?: unknown } = {};
  try {
    meta = JSON.parse(await readFile(path.join(dir, 'checkpoint.json'), 'utf8'));
  } catch {
    meta = {};
  }
  const fallback = name === 'english' ? ENGLISH_MAX_TOKENS : 8192;
  const maxStateTokens = Number.isInteger(meta.max_state_tokens) && (meta.max_state_tokens as number) > 0 ? (meta.max_state_tokens as number) : fallback;
  return {
    name,
    dir,
    model,
    tokenizer,
    tokenizerConfig,
    maxStateTokens: name === 'english' ? Math.min(maxStateTokens, ENGLISH_MAX_TOKENS) : maxStateTokens,
    yesIndex: meta.yes_index === 0 ? 0 : 1,
  };
}
