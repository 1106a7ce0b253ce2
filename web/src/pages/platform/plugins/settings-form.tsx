import { useEffect, useState } from 'preact/hooks';
import { sb, unwrap, type PluginSummary } from '../../../api.js';
import { ErrorNote } from '../../../components/notes.js';
import { useAction } from '../../../hooks/use-action.js';
import { useGet } from '../../../hooks/use-api.js';
import { FieldInput } from './field-input.js';
import { changes, draftOf, type Draft } from './settings-draft.js';

/** A plugin's settings form, generated from its schema: Test settings checks the changes, Save stores them on a new generation. */
export function SettingsForm({ id, plugin, onSaved }: { id: string; plugin: PluginSummary | undefined; onSaved: () => void }) {
  const cfg = useGet('/plugins/{id}/config', { path: { id } });
  const [draft, setDraft] = useState<Draft>();
  const action = useAction();
  useEffect(() => {
    // A fresh view (after a save) resets the form; a failed request leaves the typed values.
    if (cfg.data) setDraft(draftOf(cfg.data));
  }, [cfg.data]);
  if (cfg.error) return <ErrorNote error={cfg.error} />;
  if (!cfg.data || !draft) return <p class="note">Loading…</p>;
  const data = cfg.data;
  const params = { path: { id } };
  const send = (kind: 'test' | 'save') => {
    const { body, problem } = changes(data, draft);
    if (problem) return action.setError(problem);
    void action.run(async () => {
      if (kind === 'test') {
        const r = await unwrap(sb.POST('/plugins/{id}/config/test', { params, body }));
        return `Test ${r.ok ? 'passed' : 'failed'} (${r.checked === 'connection' ? 'the provider was contacted' : 'settings checked'}; would be ${r.state})${r.detail ? `: ${r.detail}` : ''}`;
      }
      const r = await unwrap(sb.PUT('/plugins/{id}/config', { params, body }));
      cfg.reload();
      onSaved();
      const env = r.env_overridden.length ? ` Still overridden by the environment: ${r.env_overridden.join(', ')}.` : '';
      return `Saved. ${id} is ${r.plugin?.state ?? 'unknown'} on generation ${r.plugin?.generation ?? '—'}.${env}`;
    });
  };
  return (
    <form
      class="settings"
      onSubmit={(e) => {
        e.preventDefault();
        send('save');
      }}
    >
      <div class="field">
        <label>
          <input type="checkbox" checked={draft.enabled} onChange={(e) => setDraft({ ...draft, enabled: e.currentTarget.checked })} /> Enabled
        </label>
      </div>
      {data.fields.length === 0 && <p class="note">This plugin has no settings.</p>}
      {data.fields.map((f) => (
        <FieldInput key={f.name} f={f} cfg={data} draft={draft} set={setDraft} />
      ))}
      <ErrorNote error={action.error} />
      <p role="status" data-testid="settings-result">
        {action.note ?? ''}
      </p>
      <div class="row">
        <button type="button" class="quiet" disabled={action.busy !== null} onClick={() => send('test')}>
          Test settings
        </button>
        <button type="submit" disabled={action.busy !== null}>
          Save
        </button>
        {plugin && <span class="hint">Serving on generation {plugin.generation ?? '—'}</span>}
      </div>
    </form>
  );
}
