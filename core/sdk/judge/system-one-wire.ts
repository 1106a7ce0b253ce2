import { z } from 'zod';
import type { JudgeAnswer, JudgeRequest } from '../contracts/judge.js';
import { SystemOneError } from './system-one-error.js';

const Structured = z.union([z.string(), z.record(z.string(), z.unknown()), z.array(z.unknown())]);

/** The `/v1/systemone` request body. */
export const SystemOneRequestBody = z
  .object({
    model: z.string().min(1),
    state: Structured,
    questions: z
      .record(
        z.string().min(1),
        z.object({ type: z.literal('noul'), instructions: Structured, criteria: z.object({ true: z.unknown(), false: z.unknown() }).optional() }).strict(),
      )
      .refine((q) => Object.keys(q).length > 0, 'at least one question'),
  })
  .strict();
export type SystemOneRequestBody = z.infer<typeof SystemOneRequestBody>;

/** The `/v1/systemone` answer body. */
export const SystemOneAnswerBody = z.object({
  model: z.string(),
  answers: z.record(z.string(), z.object({ type: z.literal('noul'), noul: z.number().min(0).max(1) }).strict()),
  usage: z.object({ input_tokens: z.number().int().min(0), output_tokens: z.number().int().min(0) }),
});
export type SystemOneAnswerBody = z.infer<typeof SystemOneAnswerBody>;

export function requestBody(request: JudgeRequest, model: string): SystemOneRequestBody {
  return { model, state: request.state, questions: request.questions } as SystemOneRequestBody;
}

/**
 * The answer, checked: exactly one probability in 0..1 per question asked and nothing else;
 * anything else is an invalid response.
 */
export function parseAnswer(body: unknown, asked: readonly string[]): JudgeAnswer {
  const parsed = SystemOneAnswerBody.safeParse(body);
  if (!parsed.success) throw new SystemOneError('invalid_response', `invalid answer: ${parsed.error.issues[0]?.path.join('.') || 'body'}: ${parsed.error.issues[0]?.message}`);
  const got = Object.keys(parsed.data.answers);
  const missing = asked.filter((id) => !Object.hasOwn(parsed.data.answers, id));
  const extra = got.filter((id) => !asked.includes(id));
  if (missing.length || extra.length) {
    throw new SystemOneError('invalid_response', `invalid answer: ${missing.length ? `missing ${missing.join(', ')}` : ''}${missing.length && extra.length ? '; ' : ''}${extra.length ? `not asked ${extra.join(', ')}` : ''}`);
  }
  const answers: Record<string, number> = {};
  for (const id of asked) answers[id] = parsed.data.answers[id]!.noul;
  return { model: parsed.data.model, answers, usage: parsed.data.usage };
}
