import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import onnxProto from 'onnx-proto';

const { onnx } = onnxProto;

/** The words the tiny tokenizer knows; anything else is [UNK] (id 0). */
export const VOCAB = ['[UNK]', 'yes', 'no', 'filler', 'ja', 'nein', 'oui', 'non'] as const;

/**
 * Writes a real, tiny checkpoint: `model.onnx` (logits = mean over tokens of a 2-wide
 * embedding: Gather then ReduceMean, opset 13), a WordLevel `tokenizer.json`, and
 * `checkpoint.json`. `weights` gives a word's [no, yes] logits; other words are [0, 0].
 */
export function writeTinyCheckpoint(root: string, name: string, weights: Partial<Record<(typeof VOCAB)[number], [number, number]>>, meta: Record<string, unknown> = {}): string {
  const dir = path.join(root, name);
  mkdirSync(dir, { recursive: true });
  const table = new Float32Array(VOCAB.length * 2);
  VOCAB.forEach((word, i) => {
    const w = weights[word];
    if (w) table.set(w, i * 2);
  });
  const tensor = (elemType: number, dims: Array<{ dimValue?: number; dimParam?: string }>) => ({ tensorType: { elemType, shape: { dim: dims } } });
  const { INT64, FLOAT } = onnx.TensorProto.DataType;
  const model = onnx.ModelProto.fromObject({
    irVersion: 8,
    producerName: 'switchboard-tests',
    opsetImport: [{ domain: '', version: 13 }],
    graph: {
      name: `tiny-${name}`,
      node: [
        { opType: 'Gather', input: ['embedding', 'input_ids'], output: ['embedded'], attribute: [{ name: 'axis', type: onnx.AttributeProto.AttributeType.INT, i: 0 }] },
        {
          opType: 'ReduceMean',
          input: ['embedded'],
          output: ['logits'],
          attribute: [
            { name: 'axes', type: onnx.AttributeProto.AttributeType.INTS, ints: [1] },
            { name: 'keepdims', type: onnx.AttributeProto.AttributeType.INT, i: 0 },
          ],
        },
      ],
      initializer: [{ name: 'embedding', dims: [VOCAB.length, 2], dataType: FLOAT, rawData: Buffer.from(table.buffer) }],
      input: [
        { name: 'input_ids', type: tensor(INT64, [{ dimValue: 1 }, { dimParam: 'n' }]) },
        { name: 'attention_mask', type: tensor(INT64, [{ dimValue: 1 }, { dimParam: 'n' }]) },
      ],
      output: [{ name: 'logits', type: tensor(FLOAT, [{ dimValue: 1 }, { dimValue: 2 }]) }],
    },
  });
  writeFileSync(path.join(dir, 'model.onnx'), onnx.ModelProto.encode(model).finish());
  const tokenizer = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [{ id: 0, content: '[UNK]', single_word: false, lstrip: false, rstrip: false, normalized: false, special: true }],
    normalizer: { type: 'Lowercase' },
    pre_tokenizer: { type: 'Whitespace' },
    post_processor: null,
    decoder: null,
    model: { type: 'WordLevel', vocab: Object.fromEntries(VOCAB.map((w, i) => [w, i])), unk_token: '[UNK]' },
  };
  writeFileSync(path.join(dir, 'tokenizer.json'), JSON.stringify(tokenizer));
  writeFileSync(path.join(dir, 'checkpoint.json'), JSON.stringify({ yes_index: 1, ...meta }));
  return dir;
}
