import { sb, unwrap, type ApiResponse } from '../../../api.js';
import { ErrorNote } from '../../../components/notes.js';
import { Section } from '../../../components/section.js';
import { Table, type Column } from '../../../components/table.js';
import { useAction } from '../../../hooks/use-action.js';
import { useGet } from '../../../hooks/use-api.js';
import { LIST_REFRESH_MS } from './plugin-state.js';

type RegistryEntry = ApiResponse<'/plugin-registry', 'get'>['plugins'][number];

/** The curated registry (GET /plugin-registry) with Install and Uninstall. */
export function Registry({ onChange }: { onChange: () => void }) {
  const reg = useGet('/plugin-registry', {}, LIST_REFRESH_MS * 5);
  const action = useAction();
  const act = (e: RegistryEntry) =>
    action.run(
      async () => {
        const path = { id: e.id };
        let done: string;
        if (e.installed) {
          await unwrap(sb.DELETE('/plugin-registry/{id}', { params: { path } }));
          done = `${e.id} was uninstalled.`;
        } else {
          const p = await unwrap(sb.POST('/plugin-registry/{id}/install', { params: { path } }));
          done = `${e.id} was installed (state: ${p.state}).`;
        }
        reg.reload();
        onChange();
        return done;
      },
      { label: e.id },
    );
  const columns: Column<RegistryEntry>[] = [
    {
      header: 'Entry',
      cell: (e) => (
        <>
          <span class="mono">{e.id}</span> <span class="hint">v{e.version}</span>
          <div class="hint">{e.description}</div>
        </>
      ),
    },
    { header: 'Kinds', cell: (e) => e.kinds.join(', ') },
    { header: 'Status', cell: (e) => (e.builtin ? 'built in' : e.installed ? `installed (${e.state ?? '—'})` : 'not installed') },
    {
      header: 'Action',
      cell: (e) =>
        e.builtin ? (
          <span class="hint">—</span>
        ) : (
          <button type="button" class={e.installed ? 'quiet' : ''} disabled={action.busy !== null} onClick={() => void act(e)} aria-label={`${e.installed ? 'Uninstall' : 'Install'} ${e.id}`}>
            {action.busy === e.id ? 'Working…' : e.installed ? 'Uninstall' : 'Install'}
          </button>
        ),
    },
  ];
  return (
    <Section title="Registry" id="registry">
      <ErrorNote error={reg.error ?? action.error} />
      {reg.data?.problem && <p class="error">{reg.data.problem}</p>}
      <p role="status" class="note">
        {action.note ?? ''}
      </p>
      {reg.data && <Table rows={reg.data.plugins} columns={columns} rowKey={(e) => e.id} />}
    </Section>
  );
}
