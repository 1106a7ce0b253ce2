/**
 * Enrichment (ENRICH_CODE_CHUNKS with GEN_MODEL): one chat call per chunk asks what the chunk does
 * and what a user would search it by; the answer is indexed as the chunk's own `enrichment` field.
 */
/** The small per-chunk prompt of the semantic_kg lane: what the chunk does, and words a user would search it by. */
export function enrichMessages(path: string, text: string) {
  return [
    { role: 'system' as const, content: 'Summarize what this code does in one or two sentences, in the words a user of it would search with, and list up to 12 search keywords (concepts, synonyms, names). Answer JSON: {"summary":"...","keywords":["..."]}.' },
    { role: 'user' as const, content: `${path}\n${text.slice(0, 4000)}` },
  ];
}

/** The enrichment text of a chunk: the summary, then the keywords; a reply that is not that JSON is kept as it came. */
export function enrichmentText(reply: string): string {
  const json = /\{[\s\S]*\}/.exec(reply)?.[0];
  try {
    const parsed = JSON.parse(json ?? '') as { summary?: unknown; keywords?: unknown };
    const summary = typeof parsed.summary === 'string' ? parsed.summary.trim() : '';
    const keywords = Array.isArray(parsed.keywords) ? parsed.keywords.filter((k): k is string => typeof k === 'string').map((k) => k.trim()).filter(Boolean) : [];
    if (summary || keywords.length) return [summary, keywords.join(', ')].filter(Boolean).join('\n').slice(0, 2000);
  } catch {
    // not JSON: the reply itself
  }
  return reply.trim().slice(0, 2000);
}
