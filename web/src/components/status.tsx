import type { ComponentChildren } from 'preact';

/** A badge: good (true), bad (false) or neither (null). */
export function Status({ ok, children }: { ok: boolean | null; children: ComponentChildren }) {
  const cls = ok === null ? 'badge neutral' : ok ? 'badge ok' : 'badge bad';
  return <span class={cls}>{children}</span>;
}
