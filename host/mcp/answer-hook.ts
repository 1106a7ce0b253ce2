import type { AnswerQuestion } from '../../clients/typescript/src/index.js';
import { maskSecretsDeep } from '../platform/logging/secret-detector.js';
import type { ToolHook } from './tool-hooks.js';

/** Progress notifications while the answer is written: one per 200 characters, and one for the first. */
const CHARACTERS_PER_NOTICE = 200;

/**
 * answer_question: asked for progress, the answer is streamed (POST /api/rag with stream=true) and
 * each step is told; otherwise one request. Messages count steps and characters, never carry the
 * answer's text (it is redacted at the end).
 */
export const answerWithProgress: ToolHook = {
  note: 'Sends progress notifications while it works when the request carries a progressToken. Credential-shaped text is redacted.',
  async run(call) {
    const { progress } = call;
    if (!progress) return maskSecretsDeep(await call.send());
    let characters = 0;
    await progress('searching the repository');
    const answer = await call.sb.streamAnswer(call.request.json as unknown as AnswerQuestion, {
      onReset: async () => {
        characters = 0;
        await progress('a fallback is writing the answer again');
      },
      onToken: async (text) => {
        const before = characters;
        characters += text.length;
        if (before === 0 || Math.floor(before / CHARACTERS_PER_NOTICE) !== Math.floor(characters / CHARACTERS_PER_NOTICE)) await progress(`writing the answer (${characters} characters)`);
      },
      signal: call.signal,
    });
    await progress('answer ready');
    return maskSecretsDeep(answer);
  },
};
