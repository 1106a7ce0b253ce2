import { useState } from 'preact/hooks';

export interface CursorPages {
  /** The cursor of the page shown (undefined on the first). */
  cursor: string | undefined;
  /** 1 on the first page. */
  number: number;
  next(cursor: string): void;
  previous(): void;
  reset(): void;
}

/** Paging by the API's `next_cursor`: a stack of the cursors followed, so "previous" goes back. */
export function useCursorPages(): CursorPages {
  const [cursors, setCursors] = useState<string[]>([]);
  return {
    cursor: cursors[cursors.length - 1],
    number: cursors.length + 1,
    next: (cursor) => setCursors([...cursors, cursor]),
    previous: () => setCursors(cursors.slice(0, -1)),
    reset: () => setCursors([]),
  };
}
