import type { Answer } from '../../api.js';
import { Status } from '../../components/status.js';
import { lines, type SearchResult } from './results.js';

type Citation = Answer['citations'][number];

const overlaps = (a: Citation, b: SearchResult) => a.path === b.path && a.start_line <= b.end_line && b.start_line <= a.end_line;

/** The answer's citations, each linked to the retrieved snippet it overlaps (`#source-<n>`); following one focuses it. */
export function Citations({ citations, sources, onFollow }: { citations: Citation[]; sources: SearchResult[]; onFollow: (n: number) => void }) {
  return (
    <ol class="citations" data-testid="citations">
      {citations.map((c, i) => {
        const n = sources.findIndex((s) => overlaps(c, s)) + 1;
        const label = `${c.path} ${lines(c)}`;
        return (
          <li key={i}>
            {n > 0 ? (
              <a
                href={`#source-${n}`}
                onClick={(e) => {
                  e.preventDefault();
                  onFollow(n);
                  const el = document.getElementById(`source-${n}`);
                  el?.scrollIntoView({ block: 'center' });
                  el?.focus();
                }}
              >
                {label}
              </a>
            ) : (
              <span class="mono">{label}</span>
            )}{' '}
            {c.stale && <Status ok={false}>stale</Status>}
          </li>
        );
      })}
    </ol>
  );
}
