import type { SearchAnswer } from '../../api.js';
import { Status } from '../../components/status.js';

export type SearchResult = SearchAnswer['results'][number];

export const lines = (r: { start_line: number; end_line: number }) => (r.start_line === r.end_line ? `line ${r.start_line}` : `lines ${r.start_line}–${r.end_line}`);

/** Search hits: path, lines, score, a stale mark, the snippet; each focusable (`<idPrefix>-<n>`) for a citation to point at. */
export function Results({ results, idPrefix, highlight, onOpen }: { results: SearchResult[]; idPrefix: string; highlight?: number | undefined; onOpen?: (r: SearchResult) => void }) {
  if (!results.length) return <p class="note">No result.</p>;
  return (
    <ol class="results">
      {results.map((r, i) => (
        <li key={`${r.path}:${r.start_line}`} id={`${idPrefix}-${i + 1}`} tabIndex={-1} class={highlight === i + 1 ? 'hit' : undefined}>
          <div class="result-head">
            {onOpen ? (
              <button type="button" class="link mono" title="Open the file at this line" onClick={() => onOpen(r)}>
                {r.repo ? `${r.repo}:` : ''}
                {r.path}
              </button>
            ) : (
              <span class="mono">{r.path}</span>
            )}{' '}
            <span class="hint">{lines(r)}</span> <span class="hint">score {r.score.toFixed(3)}</span>{' '}
            {r.stale && (
              <span title="The file changed or was removed since it was indexed; reindex to refresh">
                <Status ok={false}>stale</Status>
              </span>
            )}
          </div>
          <pre class="snippet">
            <code>{r.snippet}</code>
          </pre>
        </li>
      ))}
    </ol>
  );
}
