import type { CursorPages } from '../hooks/use-cursor-pages.js';

/** Previous and next page of a cursor-paged list; `numbered` says which page is shown. */
export function Pager({ pages, nextCursor, numbered = false }: { pages: CursorPages; nextCursor: string | null | undefined; numbered?: boolean }) {
  return (
    <div class="pager">
      <button type="button" class="quiet" disabled={pages.number === 1} onClick={pages.previous}>
        Previous page
      </button>
      <button type="button" class="quiet" disabled={!nextCursor} onClick={() => nextCursor && pages.next(nextCursor)}>
        Next page
      </button>
      {numbered && <span class="hint">Page {pages.number}</span>}
    </div>
  );
}
