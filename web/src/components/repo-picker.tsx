// The repositories an operator can pick (the keys of REPOS, REPO by default), read from
// GET /api/config. Without admin scope the picker falls back to a typed name.
import { useEffect, useState } from 'preact/hooks';
import type { ApiResponse } from '../api.js';
import { useGet } from '../hooks/use-api.js';
import { Field, Options } from './field.js';

type ConfigView = ApiResponse<'/api/config', 'get'>;

export function useConfig() {
  return useGet('/api/config', {});
}

function reposOf(config: ConfigView | undefined): { names: string[]; fallback: string } {
  const repos = config?.config.REPOS;
  const fallback = typeof config?.config.REPO === 'string' ? config.config.REPO : 'switchboard';
  const names = repos && typeof repos === 'object' && Object.keys(repos).length ? Object.keys(repos) : [fallback];
  return { names, fallback };
}

/** The picked repository (remembered for the session), and a control to change it. */
export function useRepo(storageKey: string): [string, (r: string) => void, string[], boolean] {
  const config = useConfig();
  const { names, fallback } = reposOf(config.data);
  const [repo, setRepo] = useState(() => sessionStorage.getItem(storageKey) ?? '');
  useEffect(() => {
    if (config.data && (!repo || !names.includes(repo))) setRepo(names.includes(fallback) ? fallback : names[0]!);
  }, [config.data]);
  const pick = (r: string) => {
    sessionStorage.setItem(storageKey, r);
    setRepo(r);
  };
  return [repo, pick, names, !config.data && !!config.error];
}

export function RepoPicker({ id, label, value, names, free, onChange }: { id: string; label: string; value: string; names: string[]; free: boolean; onChange: (r: string) => void }) {
  return (
    <Field id={id} label={label}>
      {free ? (
        <input id={id} value={value} onChange={(e) => onChange(e.currentTarget.value.trim())} />
      ) : (
        <select id={id} value={value} onChange={(e) => onChange(e.currentTarget.value)}>
          <Options values={names} />
        </select>
      )}
    </Field>
  );
}
