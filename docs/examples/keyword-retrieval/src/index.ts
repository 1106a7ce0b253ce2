// A third-party retrieval plugin written only against the SDK. It keeps an in-memory inverted
// index per collection and ranks documents by how many query terms they contain (tf-idf-ish).
import { definePlugin, z, type RetrievalDocument, type RetrievalHit } from 'switchboard/sdk';

const settings = z.object({
  /** Terms shorter than this are not indexed. */
  minTermLength: z.coerce.number().int().min(1).max(10).default(2),
});

/** Splits identifiers too: camelCase, snake_case and kebab-case become separate terms. */
function terms(text: string, min: number): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((t) => t.length >= min);
}

interface Collection {
  docs: Map<string, RetrievalDocument & { terms: Map<string, number> }>;
}

export default definePlugin({
  settings,
  env: { minTermLength: 'KEYWORD_RETRIEVAL_MIN_TERM' },
  start(ctx) {
    const collections = new Map<string, Collection>();
    const collection = (name: string) => {
      let c = collections.get(name);
      if (!c) collections.set(name, (c = { docs: new Map() }));
      return c;
    };
    const searches = ctx.metrics.counter('keyword_retrieval_searches_total', 'Searches answered');
    return {
      providers: {
        retrieval: {
          async index(name, documents) {
            const c = collection(name);
            for (const d of documents) {
              const counts = new Map<string, number>();
              for (const t of terms(d.text, ctx.settings.minTermLength)) counts.set(t, (counts.get(t) ?? 0) + 1);
              c.docs.set(d.id, { ...d, terms: counts });
            }
            return { indexed: documents.length };
          },
          async search(name, query, topK) {
            searches.inc();
            const c = collection(name);
            const wanted = [...new Set(terms(query, ctx.settings.minTermLength))];
            const n = c.docs.size;
            const hits: RetrievalHit[] = [];
            for (const d of c.docs.values()) {
              let score = 0;
              for (const t of wanted) {
                const tf = d.terms.get(t);
                if (!tf) continue;
                const df = [...c.docs.values()].filter((x) => x.terms.has(t)).length;
                score += tf * Math.log(1 + n / df);
              }
              if (score > 0) hits.push({ id: d.id, score, text: d.text, ...(d.metadata ? { metadata: d.metadata } : {}) });
            }
            return hits.sort((a, b) => b.score - a.score).slice(0, topK);
          },
          async delete(name, ids) {
            const c = collection(name);
            let deleted = 0;
            for (const id of ids) if (c.docs.delete(id)) deleted++;
            return { deleted };
          },
        },
      },
      health: () => ({ ok: true, info: { collections: collections.size } }),
    };
  },
});
