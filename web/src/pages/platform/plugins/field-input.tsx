import { Options } from '../../../components/field.js';
import { Status } from '../../../components/status.js';
import type { Draft, Field, PluginConfig } from './settings-draft.js';

/** One setting's control, generated from its schema field: secrets write-only, environment overrides marked. */
export function FieldInput({ f, cfg, draft, set }: { f: Field; cfg: PluginConfig; draft: Draft; set: (d: Draft) => void }) {
  const id = `setting-${f.name}`;
  const hintId = `${id}-hint`;
  const value = draft.values[f.name];
  const fromEnv = cfg.sources[f.name] === 'env';
  const update = (v: string | boolean) => set({ ...draft, values: { ...draft.values, [f.name]: v } });
  const hint = [
    f.description,
    f.secret ? (cfg.secrets[f.name]?.set ? 'Secret: set. Leave empty to keep it.' : 'Secret: not set.') : undefined,
    f.env_only ? `Only the environment sets it${f.env ? ` (${f.env})` : ''}.` : undefined,
    fromEnv ? `Overridden by the environment variable ${f.env ?? ''}: a stored value is kept but the environment wins.` : undefined,
    !f.secret && f.default !== undefined ? `Default: ${JSON.stringify(f.default)}` : undefined,
  ]
    .filter(Boolean)
    .join(' ');
  const common = { id, disabled: f.env_only, 'aria-describedby': hint ? hintId : undefined };
  let input;
  if (f.type === 'boolean')
    input = <input type="checkbox" {...common} checked={value === true} onChange={(e) => update(e.currentTarget.checked)} />;
  else if (f.type === 'enum')
    input = (
      <select {...common} value={String(value)} onChange={(e) => update(e.currentTarget.value)}>
        {!f.required && <option value="">(unset)</option>}
        <Options values={f.options!} />
      </select>
    );
  else if (f.type === 'json') input = <textarea {...common} rows={3} value={String(value)} onInput={(e) => update(e.currentTarget.value)} />;
  else
    input = (
      <input
        {...common}
        type={(f.secret ? 'password' : f.type === 'string' ? 'text' : 'number') as 'text'}
        autoComplete={f.secret ? 'new-password' : 'off'}
        placeholder={f.secret && cfg.secrets[f.name]?.set ? 'set' : undefined}
        value={String(value)}
        onInput={(e) => update(e.currentTarget.value)}
      />
    );
  return (
    <div class="field" data-field={f.name}>
      <label for={id}>
        {f.name}
        {f.required && <span aria-hidden="true"> *</span>}{' '}
        {f.secret && <Status ok={null}>{cfg.secrets[f.name]?.set ? 'set' : 'not set'}</Status>}{' '}
        {fromEnv && <Status ok={null}>env: {f.env}</Status>}
      </label>
      {input}
      {f.secret && cfg.secrets[f.name]?.set && !f.env_only && (
        <label class="hint">
          <input type="checkbox" checked={!!draft.clear[f.name]} onChange={(e) => set({ ...draft, clear: { ...draft.clear, [f.name]: e.currentTarget.checked } })} /> clear this secret
        </label>
      )}
      {hint && (
        <span id={hintId} class="hint">
          {hint}
        </span>
      )}
    </div>
  );
}
