import type { ComponentChildren } from 'preact';

/** A card with its heading; the region is named by the heading. */
export function Section({ title, children, id }: { title: string; children: ComponentChildren; id?: string }) {
  const hid = `${id ?? title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-h`;
  return (
    <section class="card" aria-labelledby={hid}>
      <h2 id={hid}>{title}</h2>
      {children}
    </section>
  );
}
