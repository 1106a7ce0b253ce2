import { useState } from 'preact/hooks';
import { sb, unwrap, type ApiResponse } from '../../api.js';
import { Field } from '../../components/field.js';
import { ActionOutcome, ErrorNote } from '../../components/notes.js';
import { useConfig } from '../../components/repo-picker.js';
import { Section } from '../../components/section.js';
import { Status } from '../../components/status.js';
import { useAction } from '../../hooks/use-action.js';
import { useApi, useGet } from '../../hooks/use-api.js';

/** The judge plugins system_one.provider can name (GET /api/judges). */
type JudgeEntry = ApiResponse<'/api/judges', 'get'>['judges'][number];
/** /api/ready answers 503 with the same body when a dependency is missing: an answer to show. */
type Readiness = ApiResponse<'/api/ready', 'get'> | ApiResponse<'/api/ready', 'get', 503>;

const judgeLabel = (j: JudgeEntry) => `${j.name} · ${j.hosting} · ${j.state}`;

function Dependencies({ ready }: { ready: Readiness }) {
  return (
    <ul class="plain">
      {ready.dependencies.map((d) => (
        <li key={d.name}>
          <Status ok={d.ready}>{d.ready ? 'ready' : 'not ready'}</Status> <span class="mono">{d.name}</span> {d.detail && <span class="hint">{d.detail}</span>}{' '}
          {d.hint && <span class="hint">— {d.hint}</span>}
        </li>
      ))}
    </ul>
  );
}

/** The judge in force, where that setting comes from, and a switch among the judge plugins. */
export function Judge() {
  const config = useConfig();
  const judges = useGet('/api/judges', {});
  const ready = useApi((signal) => sb.request<Readiness>('GET', '/api/ready', { acceptStatus: [503], signal }), [], 30_000);
  const current = config.data?.config['system_one.provider'];
  const source = config.data?.source['system_one.provider'];
  const [choice, setChoice] = useState<string>();
  const action = useAction();
  const list = judges.data?.judges ?? [];
  // A setting that names no judge plugin stays in the list as it is, so the select never hides it.
  const selected = list.find((j) => j.selected)?.id ?? judges.data?.provider ?? '';
  const options = list.map((j) => ({ id: j.id, label: judgeLabel(j) }));
  if (selected && !list.some((j) => j.id === selected)) options.push({ id: selected, label: `${selected} · no judge plugin has this name` });
  const value = choice ?? selected;
  const chosen = list.find((j) => j.id === value);
  const save = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      const res = await unwrap(sb.POST('/api/config', { body: { 'system_one.provider': value } }));
      setChoice(undefined);
      config.reload();
      judges.reload();
      ready.reload();
      return res.env_overridden.includes('system_one.provider') ? 'Stored, but the environment sets system_one.provider and still wins.' : `Judgments now go to ${chosen?.name ?? value}.`;
    });
  };
  return (
    <Section title="Judge backend" id="judge">
      <ErrorNote error={config.error} />
      {config.data && (
        <p data-testid="judge-provider">
          In force: <strong class="mono">{String(current)}</strong> <span class="hint">(from {source ?? 'default'})</span>
        </p>
      )}
      <ErrorNote error={judges.error} />
      <form class="row" onSubmit={save}>
        <Field id="judge-provider" label="Backend">
          <select id="judge-provider" value={value} aria-describedby="judge-state" onChange={(e) => setChoice(e.currentTarget.value)}>
            {options.map((j) => (
              <option key={j.id} value={j.id}>
                {j.label}
              </option>
            ))}
          </select>
        </Field>
        <div class="field">
          <button type="submit" disabled={action.busy !== null || !judges.data || value === selected}>
            Switch
          </button>
        </div>
      </form>
      {/* Any judge may be chosen (a plugin waiting for its settings included), but not without saying what follows. */}
      <p id="judge-state" class="hint">
        {chosen && chosen.state !== 'active' && `${chosen.name} is ${chosen.state}: every judgment fails as unavailable until it is active.`}
      </p>
      <ActionOutcome action={action} />
      <ErrorNote error={ready.error} />
      {ready.data && <Dependencies ready={ready.data} />}
    </Section>
  );
}
