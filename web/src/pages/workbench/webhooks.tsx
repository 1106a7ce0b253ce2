import { useState } from 'preact/hooks';
import { sb, unwrap, type ApiResponse } from '../../api.js';
import { Field } from '../../components/field.js';
import { ActionOutcome, WhenLoaded } from '../../components/notes.js';
import { Section } from '../../components/section.js';
import { Table, type Column } from '../../components/table.js';
import { useAction } from '../../hooks/use-action.js';
import { useGet } from '../../hooks/use-api.js';

type Target = ApiResponse<'/admin/integrations/webhooks', 'get'>['targets'][number];

const COLUMNS: Column<Target>[] = [
  { header: 'Target', class: 'mono', cell: (t) => t.id },
  { header: 'Receiver', class: 'mono', cell: (t) => t.receiver },
];

/** Integrations → Webhooks: the alert receivers (masked), add, remove and send a test. */
export function Webhooks({ onSent }: { onSent: () => void }) {
  const targets = useGet('/admin/integrations/webhooks', {});
  const [url, setUrl] = useState('');
  const action = useAction();
  const run = (work: () => Promise<string>) =>
    action.run(async () => {
      const said = await work();
      targets.reload();
      return said;
    });
  const add = (e: Event) => {
    e.preventDefault();
    void run(async () => {
      const r = await unwrap(sb.POST('/admin/integrations/webhooks/targets', { body: { url: url.trim() } }));
      setUrl('');
      return r.env_overridden ? `Stored as ${r.id}, but WEBHOOK_TARGETS is set in the environment and still wins.` : `Added ${r.id}.`;
    });
  };
  const remove = (id: string) =>
    run(async () => {
      await unwrap(sb.DELETE('/admin/integrations/webhooks/targets/{id}', { params: { path: { id } } }));
      return `Removed ${id}.`;
    });
  const test = (id: string) =>
    run(async () => {
      const r = await unwrap(sb.POST('/admin/alerts/test', { body: { target: id } }));
      onSent();
      return r.filtered ? `The test to ${id} was filtered (see deliveries).` : `Test alert queued for ${id}; its delivery shows below.`;
    });
  const busy = action.busy !== null;
  const buttons = (t: Target) => (
    <>
      <button type="button" class="quiet" disabled={busy} onClick={() => test(t.id)} aria-label={`Send test to ${t.id}`}>
        Send test
      </button>
      {t.instance_of !== null && (
        <button type="button" class="quiet" disabled={busy} onClick={() => remove(t.id)} aria-label={`Remove ${t.id}`}>
          Remove
        </button>
      )}
    </>
  );
  return (
    <Section title="Integrations → Webhooks" id="webhooks">
      <p class="hint">Alert receivers (WEBHOOK_TARGETS). URLs are secrets: only the host is shown.</p>
      <WhenLoaded loaded={targets}>
        {(data) => (
          <>
            <Table testId="targets" rows={data.targets} columns={COLUMNS} rowKey={(t) => t.id} actions={{ label: (t) => `Actions for ${t.id}`, cell: buttons }} empty="No target: alerts go nowhere." />
            {data.problems.length > 0 && (
              <ul class="plain">
                {data.problems.map((p) => (
                  <li key={p} class="error">
                    {p}
                  </li>
                ))}
              </ul>
            )}
          </>
        )}
      </WhenLoaded>
      <form class="row" onSubmit={add}>
        <Field id="webhook-url" grow label="New target URL (https)">
          <input id="webhook-url" type="url" autoComplete="off" spellcheck={false} value={url} onInput={(e) => setUrl(e.currentTarget.value)} placeholder="https://hooks.example.com/…" />
        </Field>
        <div class="field">
          <button type="submit" disabled={busy || !url.trim()}>
            Add target
          </button>
        </div>
      </form>
      <ActionOutcome action={action} />
    </Section>
  );
}
