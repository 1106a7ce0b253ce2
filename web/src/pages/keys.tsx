import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, apiKey, errorText, readEvents, request, setApiKey } from '../api.js';
import { ErrorNote, Section, Status, when } from '../components.js';
import { useApi } from '../hooks.js';
import { SCOPES } from '../scopes.js';

interface KeyMeta {
  key_id: string;
  name: string;
  owner: string | null;
  scopes: string[];
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
}
interface Minted extends KeyMeta {
  token: string;
}
interface AuditRecord {
  id: number;
  ts: string;
  event: string;
  [k: string]: unknown;
}

async function copyText(text: string, fallback: HTMLInputElement | HTMLTextAreaElement | null): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // No clipboard permission: select the text so Ctrl+C copies it.
    fallback?.select();
    return document.execCommand?.('copy') ?? false;
  }
}

/** A token shown once: read-only field, copy button, and "use it for this session". */
function TokenOnce({ minted, onDone }: { minted: Minted; onDone: () => void }) {
  const field = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<string>();
  useEffect(() => field.current?.focus(), []);
  return (
    <div class="preview" role="region" aria-label="New token" data-testid="token-once">
      <p>
        <strong>The token of “{minted.name}”</strong> is shown only now: copy it and keep it somewhere safe.
      </p>
      <div class="row">
        <div class="field grow">
          <label for="new-token">Token</label>
          <input id="new-token" ref={field} class="mono" readOnly value={minted.token} onFocus={(e) => e.currentTarget.select()} />
        </div>
        <div class="field">
          <button type="button" onClick={async () => setCopied((await copyText(minted.token, field.current)) ? 'Copied to the clipboard.' : 'Selected: press Ctrl+C to copy.')}>
            Copy
          </button>
        </div>
      </div>
      <p role="status" class="hint">
        {copied}
      </p>
      <div class="row">
        {minted.scopes.includes('admin') && (
          <button type="button" class="quiet" onClick={() => (setApiKey(minted.token), location.reload())}>
            Use this key for this session
          </button>
        )}
        <button type="button" class="quiet" onClick={onDone}>
          Done, hide the token
        </button>
      </div>
    </div>
  );
}

function MintForm({ onMinted }: { onMinted: (m: Minted) => void }) {
  const [name, setName] = useState('');
  const [owner, setOwner] = useState('');
  const [scopes, setScopes] = useState<string[]>([]);
  const [expires, setExpires] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const body: Record<string, unknown> = { name: name.trim(), scopes };
      if (owner.trim()) body.owner = owner.trim();
      if (expires) body.expires_at = new Date(expires).toISOString();
      const minted = await api<Minted>('/admin/api-keys', { method: 'POST', body });
      setName('');
      setOwner('');
      setScopes([]);
      setExpires('');
      onMinted(minted);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={submit} aria-labelledby="mint-h">
      <h3 id="mint-h">Mint a key</h3>
      <div class="row">
        <div class="field">
          <label for="key-name">Name</label>
          <input id="key-name" value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </div>
        <div class="field">
          <label for="key-owner">
            Owner <span class="hint">(optional)</span>
          </label>
          <input id="key-owner" value={owner} onInput={(e) => setOwner(e.currentTarget.value)} />
        </div>
        <div class="field">
          <label for="key-expires">
            Expires <span class="hint">(optional)</span>
          </label>
          <input id="key-expires" type="datetime-local" value={expires} onInput={(e) => setExpires(e.currentTarget.value)} />
        </div>
      </div>
      <fieldset class="scopes">
        <legend>Scopes</legend>
        {SCOPES.map((s) => (
          <label key={s.name} class="check">
            <input
              type="checkbox"
              checked={scopes.includes(s.name)}
              onChange={(e) => setScopes(e.currentTarget.checked ? [...scopes, s.name] : scopes.filter((x) => x !== s.name))}
            />{' '}
            <span class="mono">{s.name}</span> <span class="hint">{s.grants}</span>
          </label>
        ))}
      </fieldset>
      <button type="submit" disabled={busy}>
        Mint key
      </button>
      <ErrorNote error={error} />
    </form>
  );
}

function Keys() {
  const keys = useApi<{ keys: KeyMeta[] }>('/admin/api-keys');
  const [minted, setMinted] = useState<Minted | null>(null);
  const [confirm, setConfirm] = useState<{ id: string; action: 'rotate' | 'revoke' } | null>(null);
  const [error, setError] = useState<string>();
  const act = async (id: string, action: 'rotate' | 'revoke') => {
    setError(undefined);
    try {
      if (action === 'rotate') setMinted(await api<Minted>(`/admin/api-keys/${id}/rotate`, { method: 'POST' }));
      else await api(`/admin/api-keys/${id}`, { method: 'DELETE' });
      setConfirm(null);
      keys.reload();
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <Section title="API keys" id="keys">
      {minted && <TokenOnce minted={minted} onDone={() => setMinted(null)} />}
      <ErrorNote error={keys.error ?? error} />
      {keys.data &&
        (keys.data.keys.length === 0 ? (
          <p class="note">No key yet: the API answers callers on this machine without one. The first key must include admin.</p>
        ) : (
          <table data-testid="keys">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Key id</th>
                <th scope="col">Scopes</th>
                <th scope="col">Created</th>
                <th scope="col">Expires</th>
                <th scope="col">Last used</th>
                <th scope="col">State</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {keys.data.keys.map((k) => (
                <tr key={k.key_id}>
                  <td>
                    {k.name}
                    {k.owner && <div class="hint">{k.owner}</div>}
                  </td>
                  <td class="mono">{k.key_id}</td>
                  <td class="mono">{k.scopes.join(' ')}</td>
                  <td>{when(k.created_at)}</td>
                  <td>{k.expires_at ? when(k.expires_at) : 'never'}</td>
                  <td>{when(k.last_used_at)}</td>
                  <td>{k.revoked_at ? <Status ok={false}>revoked</Status> : <Status ok={true}>active</Status>}</td>
                  <td>
                    {!k.revoked_at &&
                      (confirm?.id === k.key_id ? (
                        <span class="row">
                          <span>
                            {confirm.action === 'rotate' ? 'Rotate' : 'Revoke'} “{k.name}”?
                          </span>
                          <button type="button" onClick={() => act(k.key_id, confirm.action)}>
                            Yes, {confirm.action}
                          </button>
                          <button type="button" class="quiet" onClick={() => setConfirm(null)}>
                            Cancel
                          </button>
                        </span>
                      ) : (
                        <span class="row">
                          <button type="button" class="quiet" aria-label={`Rotate ${k.name}`} onClick={() => setConfirm({ id: k.key_id, action: 'rotate' })}>
                            Rotate
                          </button>
                          <button type="button" class="quiet" aria-label={`Revoke ${k.name}`} onClick={() => setConfirm({ id: k.key_id, action: 'revoke' })}>
                            Revoke
                          </button>
                        </span>
                      ))}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ))}
      <MintForm onMinted={(m) => (setMinted(m), keys.reload())} />
    </Section>
  );
}

function Settings() {
  const settings = useApi<{ config: Record<string, unknown>; source: Record<string, string>; problems: string[] }>('/admin/settings');
  const [filter, setFilter] = useState('');
  const [changedOnly, setChangedOnly] = useState(true);
  const [snippet, setSnippet] = useState<string | null>(null);
  const [error, setError] = useState<string>();
  const [copied, setCopied] = useState<string>();
  const area = useRef<HTMLTextAreaElement>(null);
  const rows = useMemo(() => {
    if (!settings.data) return [];
    const f = filter.trim().toUpperCase();
    return Object.keys(settings.data.config)
      .sort()
      .filter((k) => (!f || k.includes(f)) && (!changedOnly || settings.data!.source[k] !== 'default'))
      .map((k) => ({ key: k, value: settings.data!.config[k], source: settings.data!.source[k] ?? 'default' }));
  }, [settings.data, filter, changedOnly]);
  const exportEnv = async () => {
    setError(undefined);
    try {
      setSnippet(await (await request('/admin/settings/export')).text());
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <Section title="Effective settings" id="settings">
      <ErrorNote error={settings.error ?? error} />
      {settings.data?.problems.map((p) => (
        <p key={p} class="error">
          Ignored: {p}
        </p>
      ))}
      <div class="row">
        <div class="field">
          <label for="settings-filter">Filter by name</label>
          <input id="settings-filter" value={filter} onInput={(e) => setFilter(e.currentTarget.value)} />
        </div>
        <label class="check field">
          <input type="checkbox" checked={changedOnly} onChange={(e) => setChangedOnly(e.currentTarget.checked)} /> Only settings not at their default
        </label>
        <div class="field">
          <button type="button" class="quiet" onClick={exportEnv}>
            Export as env snippet
          </button>
        </div>
      </div>
      {snippet !== null && (
        <div class="field">
          <label for="env-snippet">
            Env snippet <span class="hint">(secrets masked)</span>
          </label>
          <textarea id="env-snippet" ref={area} class="mono" rows={Math.min(16, snippet.split('\n').length + 1)} readOnly value={snippet} />
          <div class="row">
            <button type="button" class="quiet" onClick={async () => setCopied((await copyText(snippet, area.current)) ? 'Copied.' : 'Selected: press Ctrl+C to copy.')}>
              Copy snippet
            </button>
            <span role="status" class="hint">
              {copied}
            </span>
          </div>
        </div>
      )}
      {settings.data && (
        <table data-testid="settings">
          <thead>
            <tr>
              <th scope="col">Setting</th>
              <th scope="col">Value</th>
              <th scope="col">Source</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.key}>
                <td class="mono">{r.key}</td>
                <td class="mono hash">{r.value === null ? <span class="hint">unset</span> : typeof r.value === 'string' ? r.value : JSON.stringify(r.value)}</td>
                <td>{r.source}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Section>
  );
}

function describe(r: AuditRecord): string {
  const { id: _id, ts: _ts, event: _event, ...rest } = r;
  return Object.entries(rest)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');
}

function AuditLog() {
  const recent = useApi<{ records: AuditRecord[] }>('/admin/logs?limit=50');
  const [live, setLive] = useState<AuditRecord[]>([]);
  const [tailing, setTailing] = useState(false);
  const [error, setError] = useState<string>();
  useEffect(() => {
    if (!tailing) return;
    const ctl = new AbortController();
    readEvents(
      '/admin/logs/tail',
      (event, data) => {
        if (event === 'audit') setLive((l) => [JSON.parse(data) as AuditRecord, ...l].slice(0, 200));
      },
      ctl.signal,
    )
      .then(() => !ctl.signal.aborted && setTailing(false))
      .catch((err: unknown) => {
        if (!ctl.signal.aborted) (setError(errorText(err)), setTailing(false));
      });
    return () => ctl.abort();
  }, [tailing]);
  const seen = new Set(live.map((r) => r.id));
  const records = [...live, ...(recent.data?.records ?? []).filter((r) => !seen.has(r.id))];
  return (
    <Section title="Audit log" id="audit">
      <div class="row">
        <button type="button" aria-pressed={tailing} onClick={() => (setError(undefined), setTailing(!tailing))}>
          {tailing ? 'Stop live tail' : 'Start live tail'}
        </button>
        <button type="button" class="quiet" onClick={() => (setLive([]), recent.reload())}>
          Refresh
        </button>
        <span role="status" class="hint" data-testid="tail-state">
          {tailing ? 'Live: new records appear at the top.' : ''}
        </span>
      </div>
      <ErrorNote error={recent.error ?? error} />
      {recent.data && records.length === 0 && <p class="note">No audit records. They are kept while AUDIT_LOG_ENABLED is true.</p>}
      {records.length > 0 && (
        <table data-testid="audit">
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Event</th>
              <th scope="col">Details</th>
            </tr>
          </thead>
          <tbody>
            {records.map((r) => (
              <tr key={r.id}>
                <td>{when(r.ts)}</td>
                <td class="mono">{r.event}</td>
                <td class="mono hint hash">{describe(r)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Section>
  );
}

export function KeysPage() {
  return (
    <>
      {!apiKey() && <p class="note">This session has no API key: requests go without one (allowed from this machine until a key exists).</p>}
      <Keys />
      <Settings />
      <AuditLog />
    </>
  );
}
