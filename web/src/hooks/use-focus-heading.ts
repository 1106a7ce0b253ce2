import { useEffect, useRef } from 'preact/hooks';

/** Moves focus to the page heading when the page changes, so screen readers announce it. */
export function useFocusHeading<T extends HTMLElement>(key: string) {
  const ref = useRef<T>(null);
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    ref.current?.focus();
  }, [key]);
  return ref;
}
