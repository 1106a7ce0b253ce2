import type { ChatMessage } from '../../../platform/llm/gateway-client.js';
import type { SearchResult } from '../retrieval/code-search.js';
import type { FileStamp } from '../retrieval/freshness.js';

export interface Citation {
  path: string;
  start_line: number;
  end_line: number;
  /** The index run that wrote the cited chunk, and when. */
  run_id?: string;
  indexed_at?: string;
  /** The file changed or vanished since it was indexed. */
  stale?: boolean;
  /** The file's stamp at indexing (internal: checked again when the answer is returned). */
  stamp?: FileStamp;
}

/** The citation of a retrieved chunk, with its freshness. */
export function citationOf(chunk: SearchResult): Citation {
  return {
    path: chunk.path,
    start_line: chunk.start_line,
    end_line: chunk.end_line,
    ...(chunk.run_id ? { run_id: chunk.run_id } : {}),
    ...(chunk.indexed_at ? { indexed_at: chunk.indexed_at } : {}),
    ...(chunk.stamp ? { stamp: chunk.stamp } : {}),
  };
}

/** An excerpt as the model and the extractive answer see it: location, the LLM's summary when indexed, the code. */
function excerpt(c: SearchResult, n: number): string {
  return `[${n}] ${c.path}:${c.start_line}-${c.end_line}\n${c.enrichment ? `Summary: ${c.enrichment.replace(/\s+/g, ' ')}\n` : ''}${c.snippet}`;
}

/** Longest question (and chat message) accepted, in characters. */
export const MAX_QUESTION_CHARS = 4000;

const SYSTEM_PROMPT =
  'You answer questions about a code repository using only the numbered excerpts given. ' +
  'Cite every excerpt you rely on with its number in square brackets, like [1] or [2][3]. ' +
  'If the excerpts do not answer the question, say so plainly. Be concise.';

/** The generation prompt: the question and the retrieved chunks, numbered for citation. */
export function answerMessages(question: string, chunks: SearchResult[]): ChatMessage[] {
  const context = chunks.map((c, i) => excerpt(c, i + 1)).join('\n\n');
  return [
    { role: 'system', content: SYSTEM_PROMPT },
    { role: 'user', content: `Excerpts:\n\n${context || '(none found)'}\n\nQuestion: ${question}` },
  ];
}

/** Asks for a better search query when the first retrieval found little. */
export function rewriteMessages(question: string): ChatMessage[] {
  return [
    {
      role: 'system',
      content: 'Rewrite the question into a short code-search query: identifiers, file names and key terms only. Reply with the query alone.',
    },
    { role: 'user', content: question },
  ];
}

/** Condenses a conversation into one standalone question for retrieval. */
export function condenseMessages(messages: ChatMessage[]): ChatMessage[] {
  const history = messages.map((m) => `${m.role}: ${m.content}`).join('\n');
  return [
    {
      role: 'system',
      content: 'Given the conversation, write the last user request as one standalone question that needs no earlier context. Reply with the question alone.',
    },
    { role: 'user', content: history },
  ];
}

/**
 * The citations of an answer, checked against the chunks the model was shown: `[n]` markers
 * naming a shown chunk count, anything else (a number out of range, a path that was never
 * retrieved) is dropped and reported.
 */
export function citationsOf(answer: string, chunks: SearchResult[]): { citations: Citation[]; dropped: string[] } {
  const citations: Citation[] = [];
  const dropped: string[] = [];
  const seen = new Set<number>();
  for (const m of answer.matchAll(/\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\]/g)) {
    for (const part of m[1]!.split(',')) {
      const n = Number(part.trim());
      const chunk = chunks[n - 1];
      if (!chunk) {
        dropped.push(`[${n}]`);
        continue;
      }
      if (seen.has(n)) continue;
      seen.add(n);
      citations.push(citationOf(chunk));
    }
  }
  return { citations, dropped };
}

/** An answer made of the best snippets, for when no model is configured or every model call failed. */
export function extractiveAnswer(chunks: SearchResult[], limit = 3): { answer: string; citations: Citation[] } {
  const best = chunks.slice(0, limit);
  if (!best.length) return { answer: 'No matching code was found for this question.', citations: [] };
  const answer = best.map((c, i) => excerpt(c, i + 1)).join('\n\n');
  return { answer, citations: best.map(citationOf) };
}

const STOP = new Set(
  'the and for are was were this that with from what where which when who whom how why does did doing done have has had into onto about over under than then them they their there here its not but can could should would will shall may might must been being any all some such only also just very more most each other our your you his her she him out get got use used uses using make made'.split(
    ' ',
  ),
);

/** Content words of a text: lower-cased, identifiers split (camelCase, snake_case), stop words and short words dropped. */
export function contentTerms(text: string): Set<string> {
  const terms = new Set<string>();
  for (const word of text.match(/[A-Za-z0-9_]+/g) ?? []) {
    const parts = word.split(/_+|(?<=[a-z0-9])(?=[A-Z])/).concat(word);
    for (const p of parts) {
      const t = p.toLowerCase();
      if (t.length >= 3 && !STOP.has(t)) terms.add(t);
    }
  }
  return terms;
}

/**
 * Relevance grade of one chunk: the share of the question's content terms found in its path
 * and text (crude prefix matching stands in for stemming: "coalesced" meets "coalesce").
 */
export function relevance(questionTerms: Set<string>, chunk: SearchResult): number {
  if (!questionTerms.size) return 0;
  const have = contentTerms(`${chunk.path} ${chunk.snippet} ${chunk.enrichment ?? ''}`);
  let found = 0;
  for (const q of questionTerms) {
    const stem = q.length > 5 ? q.slice(0, 5) : q;
    if (have.has(q) || [...have].some((h) => h.startsWith(stem))) found++;
  }
  return found / questionTerms.size;
}
