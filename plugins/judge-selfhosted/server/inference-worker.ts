import { readFile } from 'node:fs/promises';
import { parentPort } from 'node:worker_threads';
import type { CheckpointFiles } from './checkpoints.js';
import { loadOnnxRuntime, type OnnxRuntime } from './onnx-runtime.js';

// The single inference worker of the judge server: it owns the one resident checkpoint (model
// session and tokenizer) and answers one message at a time, off the server's event loop.

export type WorkerRequest =
  | { id: number; type: 'load'; checkpoint: CheckpointFiles }
  | { id: number; type: 'infer'; state: string; questions: Array<{ id: string; text: string }> }
  | { id: number; type: 'shutdown' };
export type WorkerReply = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: string; code?: string };

interface Loaded {
  checkpoint: CheckpointFiles;
  session: import('onnxruntime-common').InferenceSession;
  encode: (text: string) => number[];
}

let loaded: Loaded | undefined;
let ort: OnnxRuntime | undefined;

async function load(checkpoint: CheckpointFiles): Promise<void> {
  ort ??= await loadOnnxRuntime();
  const { Tokenizer } = await import('@huggingface/tokenizers');
  const tokenizerJson = JSON.parse(await readFile(checkpoint.tokenizer, 'utf8'));
  const tokenizerConfig = checkpoint.tokenizerConfig ? JSON.parse(await readFile(checkpoint.tokenizerConfig, 'utf8')) : {};
  const tokenizer = new Tokenizer(tokenizerJson, tokenizerConfig);
  const vocab = (tokenizerJson.model?.vocab ?? {}) as Record<string, number>;
  const unkToken = tokenizerJson.model?.unk_token as string | undefined;
  const unkId = unkToken !== undefined && Object.hasOwn(vocab, unkToken) ? vocab[unkToken]! : 0;
  // max_loaded = 1: the previous checkpoint is released before the next is resident.
  if (loaded) await loaded.session.release();
  loaded = undefined;
  const session = await ort.InferenceSession.create(await readFile(checkpoint.model));
  loaded = { checkpoint, session, encode: (text) => tokenizer.encode(text).ids.map((id: number | undefined) => (id === undefined ? unkId : id)) };
}

async function infer(state: string, questions: Array<{ id: string; text: string }>) {
  if (!loaded || !ort) throw Object.assign(new Error('no checkpoint is resident'), { code: 'not_loaded' });
  const { session, encode, checkpoint } = loaded;
  const stateIds = encode(state);
  const kept = stateIds.slice(0, checkpoint.maxStateTokens);
  const answers: Record<string, number> = {};
  let inputTokens = 0;
  for (const question of questions) {
    const ids = [...kept, ...encode(question.text)];
    if (!ids.length) ids.push(0);
    inputTokens += ids.length;
    const feeds: Record<string, import('onnxruntime-common').Tensor> = {
      input_ids: new ort.Tensor('int64', BigInt64Array.from(ids, (n) => BigInt(n)), [1, ids.length]),
    };
    if (session.inputNames.includes('attention_mask')) feeds.attention_mask = new ort.Tensor('int64', new BigInt64Array(ids.length).fill(1n), [1, ids.length]);
    if (session.inputNames.includes('token_type_ids')) feeds.token_type_ids = new ort.Tensor('int64', new BigInt64Array(ids.length), [1, ids.length]);
    const output = await session.run(feeds);
    const logits = Array.from((output[session.outputNames[0]!]!.data as Float32Array).slice(0, 2));
    const max = Math.max(...logits);
    const exp = logits.map((l) => Math.exp(l - max));
    answers[question.id] = exp[checkpoint.yesIndex]! / (exp[0]! + exp[1]!);
  }
  return { checkpoint: checkpoint.name, answers, input_tokens: inputTokens, truncated: stateIds.length > kept.length };
}

/** Releases the resident session; the thread then ends on its own once its port is closed. */
async function shutdown(): Promise<void> {
  const resident = loaded;
  loaded = undefined;
  if (resident) await resident.session.release();
}

parentPort?.on('message', (message: WorkerRequest) => {
  if (message.type === 'shutdown') {
    void shutdown().then(
      () => parentPort!.postMessage({ id: message.id, ok: true, result: 'released' } satisfies WorkerReply),
      (err: unknown) => parentPort!.postMessage({ id: message.id, ok: false, error: (err as Error)?.message ?? String(err) } satisfies WorkerReply),
    ).finally(() => parentPort!.close());
    return;
  }
  const work = message.type === 'load' ? load(message.checkpoint).then(() => ({ loaded: message.checkpoint.name })) : infer(message.state, message.questions);
  work.then(
    (result) => parentPort!.postMessage({ id: message.id, ok: true, result } satisfies WorkerReply),
    (err: unknown) => parentPort!.postMessage({ id: message.id, ok: false, error: (err as Error)?.message ?? String(err), code: (err as { code?: string })?.code } satisfies WorkerReply),
  );
});
// Loaded: the server may terminate this thread from now on (id 0 is never a request's).
parentPort?.postMessage({ id: 0, ok: true, result: 'loaded' } satisfies WorkerReply);
