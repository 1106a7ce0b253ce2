import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { CHECKPOINT_NAMES, type CheckpointName } from './checkpoints.js';

/** A word's [no, yes] logits in a word-level checkpoint; words not listed are [0, 0]. */
export type WordWeights = Record<string, readonly [number, number]>;

/** Whether the ONNX protobuf writer (the optional dependency onnx-proto) is installed. */
export function checkpointWriterInstalled(): boolean {
  try {
    createRequire(import.meta.url).resolve('onnx-proto');
    return true;
  } catch {
    return false;
  }
}

/**
 * Writes a real, tiny checkpoint into `dir`: `model.onnx` (logits = the mean over the tokens of a
 * 2-wide embedding: Gather then ReduceMean, opset 13), a WordLevel `tokenizer.json` (lowercase,
 * split on whitespace and punctuation) and `checkpoint.json`. `vocab[0]` is the unknown token.
 * onnx-proto is loaded only here, so nothing else pays for it.
 */
export function writeWordCheckpoint(dir: string, vocab: readonly string[], weights: WordWeights, meta: Record<string, unknown> = {}): string {
  const { onnx } = createRequire(import.meta.url)('onnx-proto') as typeof import('onnx-proto');
  mkdirSync(dir, { recursive: true });
  const table = new Float32Array(vocab.length * 2);
  vocab.forEach((word, i) => {
    const w = weights[word];
    if (w) table.set(w, i * 2);
  });
  const tensor = (elemType: number, dims: Array<{ dimValue?: number; dimParam?: string }>) => ({ tensorType: { elemType, shape: { dim: dims } } });
  const { INT64, FLOAT } = onnx.TensorProto.DataType;
  const { INT, INTS } = onnx.AttributeProto.AttributeType;
  const model = onnx.ModelProto.fromObject({
    irVersion: 8,
    producerName: 'switchboard',
    opsetImport: [{ domain: '', version: 13 }],
    graph: {
      name: `words-${path.basename(dir)}`,
      node: [
        { opType: 'Gather', input: ['embedding', 'input_ids'], output: ['embedded'], attribute: [{ name: 'axis', type: INT, i: 0 }] },
        {
          opType: 'ReduceMean',
          input: ['embedded'],
          output: ['logits'],
          attribute: [
            { name: 'axes', type: INTS, ints: [1] },
            { name: 'keepdims', type: INT, i: 0 },
          ],
        },
      ],
      initializer: [{ name: 'embedding', dims: [vocab.length, 2], dataType: FLOAT, rawData: Buffer.from(table.buffer) }],
      input: [
        { name: 'input_ids', type: tensor(INT64, [{ dimValue: 1 }, { dimParam: 'n' }]) },
        { name: 'attention_mask', type: tensor(INT64, [{ dimValue: 1 }, { dimParam: 'n' }]) },
      ],
      output: [{ name: 'logits', type: tensor(FLOAT, [{ dimValue: 1 }, { dimValue: 2 }]) }],
    },
  });
  writeFileSync(path.join(dir, 'model.onnx'), onnx.ModelProto.encode(model).finish());
  const unk = vocab[0]!;
  const tokenizer = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [{ id: 0, content: unk, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true }],
    normalizer: { type: 'Lowercase' },
    pre_tokenizer: { type: 'Whitespace' },
    post_processor: null,
    decoder: null,
    model: { type: 'WordLevel', vocab: Object.fromEntries(vocab.map((w, i) => [w, i])), unk_token: unk },
  };
  writeFileSync(path.join(dir, 'tokenizer.json'), JSON.stringify(tokenizer));
  writeFileSync(path.join(dir, 'checkpoint.json'), JSON.stringify({ yes_index: 1, ...meta }));
  return dir;
}

/**
 * The demo judge: a toy that reads yes-words and no-words, not meaning. It lets the judge server,
 * the self-hosted judge plugin, the lab and the reranker A/B run on a fresh clone; real judgments
 * need an exported classifier (docs/workbench/judge.md).
 */
const DEMO_YES = ['yes', 'true', 'correct', 'supported', 'supports', 'answers', 'answer', 'found', 'ok', 'ja', 'oui', 'si', 'sí'];
const DEMO_NO = ['no', 'not', 'false', 'wrong', 'unsupported', 'missing', 'never', 'nothing', 'nein', 'non'];
export const DEMO_VOCAB: readonly string[] = ['[UNK]', ...DEMO_YES, ...DEMO_NO];
export const DEMO_WEIGHTS: WordWeights = Object.fromEntries([...DEMO_YES.map((w) => [w, [0, 4] as const]), ...DEMO_NO.map((w) => [w, [4, 0] as const])]);

/**
 * Writes the demo checkpoint for every checkpoint name that has no `model.onnx` under `root`;
 * an existing checkpoint is never touched. Returns the names written.
 */
export function writeMissingDemoCheckpoints(root: string): CheckpointName[] {
  const written: CheckpointName[] = [];
  for (const name of CHECKPOINT_NAMES) {
    const dir = path.join(root, name);
    if (existsSync(path.join(dir, 'model.onnx'))) continue;
    writeWordCheckpoint(dir, DEMO_VOCAB, DEMO_WEIGHTS, { demo: true, note: 'a toy written by switchboard judge-server: it reads yes/no words, not meaning' });
    written.push(name);
  }
  return written;
}
