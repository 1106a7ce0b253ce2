import { useMemo, useState } from 'preact/hooks';
import { sb, unwrap } from '../../../api.js';
import { Field } from '../../../components/field.js';
import { ErrorNote } from '../../../components/notes.js';
import { Section } from '../../../components/section.js';
import { Table, type Column } from '../../../components/table.js';
import { useAction } from '../../../hooks/use-action.js';
import { useGet } from '../../../hooks/use-api.js';
import { EnvSnippet } from './env-snippet.js';

interface Setting {
  key: string;
  value: unknown;
  source: string;
}

const COLUMNS: Column<Setting>[] = [
  { header: 'Setting', class: 'mono', cell: (r) => r.key },
  { header: 'Value', class: 'mono hash', cell: (r) => (r.value === null ? <span class="hint">unset</span> : typeof r.value === 'string' ? r.value : JSON.stringify(r.value)) },
  { header: 'Source', cell: (r) => r.source },
];

/** The effective settings with their sources, filterable, and their export as an env snippet. */
export function EffectiveSettings() {
  const settings = useGet('/admin/settings', {});
  const [filter, setFilter] = useState('');
  const [changedOnly, setChangedOnly] = useState(true);
  const [snippet, setSnippet] = useState<string | null>(null);
  const exporting = useAction();
  const rows = useMemo(() => {
    const data = settings.data;
    if (!data) return [];
    const f = filter.trim().toUpperCase();
    return Object.keys(data.config)
      .sort()
      .filter((k) => (!f || k.includes(f)) && (!changedOnly || data.source[k] !== 'default'))
      .map((k) => ({ key: k, value: data.config[k], source: data.source[k] ?? 'default' }));
  }, [settings.data, filter, changedOnly]);
  const exportEnv = () => exporting.run(async () => setSnippet(await unwrap(sb.GET('/admin/settings/export', { parseAs: 'text' }))));
  return (
    <Section title="Effective settings" id="settings">
      <ErrorNote error={settings.error ?? exporting.error} />
      {settings.data?.problems.map((p) => (
        <p key={p} class="error">
          Ignored: {p}
        </p>
      ))}
      <div class="row">
        <Field id="settings-filter" label="Filter by name">
          <input id="settings-filter" value={filter} onInput={(e) => setFilter(e.currentTarget.value)} />
        </Field>
        <label class="check field">
          <input type="checkbox" checked={changedOnly} onChange={(e) => setChangedOnly(e.currentTarget.checked)} /> Only settings not at their default
        </label>
        <div class="field">
          <button type="button" class="quiet" onClick={exportEnv}>
            Export as env snippet
          </button>
        </div>
      </div>
      {snippet !== null && <EnvSnippet snippet={snippet} />}
      {settings.data && <Table testId="settings" rows={rows} columns={COLUMNS} rowKey={(r) => r.key} />}
    </Section>
  );
}
