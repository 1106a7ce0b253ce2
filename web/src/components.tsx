import type { ComponentChildren } from 'preact';

export function ErrorNote({ error }: { error: string | undefined }) {
  if (!error) return null;
  return (
    <p class="error" role="alert">
      {error}
    </p>
  );
}

export function Status({ ok, children }: { ok: boolean | null; children: ComponentChildren }) {
  const cls = ok === null ? 'badge neutral' : ok ? 'badge ok' : 'badge bad';
  return <span class={cls}>{children}</span>;
}

export function Section({ title, children, id }: { title: string; children: ComponentChildren; id?: string }) {
  const hid = `${id ?? title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-h`;
  return (
    <section class="card" aria-labelledby={hid}>
      <h2 id={hid}>{title}</h2>
      {children}
    </section>
  );
}

export function when(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}
