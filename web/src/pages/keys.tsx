import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, errorText, request } from '../api.js';
import { ErrorNote, Section, Status, when } from '../components.js';
import { useApi } from '../hooks.js';

interface KeyMeta {
  key_id: string;
  name: string;
  owner: string | null;
  scopes: string[];
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
  rate_limit_rpm: number | null;
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

/** The audit tail polls the audit route this often while it is live. */
const AUDIT_REFRESH_MS = 3_000;

/** The scope names, from the mint route's own description in /openapi.json ("Any of: a, b"). */
function useScopeNames(): string[] {
  const [names, setNames] = useState<string[]>([]);
  useEffect(() => {
    const ctl = new AbortController();
    api<{ paths?: Record<string, { post?: { requestBody?: unknown } }>; components?: { schemas?: Record<string, unknown> } }>('/openapi.json', { signal: ctl.signal })
      .then((spec) => {
        const text = JSON.stringify(spec.paths?.['/admin/api-keys']?.post?.requestBody ?? {});
        const m = /Any of: ([a-z0-9:_, -]+)/i.exec(text);
        if (m) setNames(m[1]!.split(',').map((s) => s.trim()).filter(Boolean));
      })
      .catch(() => setNames([]));
    return () => ctl.abort();
  }, []);
  return names;
}

/** A token shown once: kept only in this component's state, never stored, gone on reload. */
function TokenOnce({ minted, onDone }: { minted: Minted; onDone: () => void }) {
  const [copied, setCopied] = useState<string>();
  return (
    <div class="preview" role="region" aria-label="New token">
      <p>
        <strong>Copy the token of “{minted.name}” now.</strong> It is shown only this once; the gateway keeps only its hash.
      </p>
      <p>
        <code class="mono token" data-testid="token">
          {minted.token}
        </code>
      </p>
      <div class="row">
        <button
          type="button"
          onClick={() =>
            navigator.clipboard.writeText(minted.token).then(
              () => setCopied('Copied to the clipboard.'),
              () => setCopied('The browser refused the clipboard: select the token and copy it by hand.'),
            )
          }
        >
          Copy token
        </button>
        <button type="button" class="quiet" onClick={onDone}>
          I have stored it
        </button>
        <span role="status" class="hint">
          {copied ?? ''}
        </span>
      </div>
    </div>
  );
}

function MintForm({ onMinted }: { onMinted: (m: Minted) => void }) {
  const scopeNames = useScopeNames();
  const [name, setName] = useState('');
  const [owner, setOwner] = useState('');
  const [scopes, setScopes] = useState<string[]>([]);
  const [typedScopes, setTypedScopes] = useState('');
  const [expires, setExpires] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    const chosen = scopeNames.length ? scopes : typedScopes.split(/[\s,]+/).filter(Boolean);
    try {
      const minted = await api<Minted>('/admin/api-keys', {
        method: 'POST',
        body: {
          name,
          scopes: chosen,
          ...(owner.trim() ? { owner: owner.trim() } : {}),
          ...(expires ? { expires_at: new Date(expires).toISOString() } : {}),
        },
      });
      // Only a success clears the form: a refused mint keeps what was typed.
      setName('');
      setOwner('');
      setScopes([]);
      setTypedScopes('');
      setExpires('');
      onMinted(minted);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={submit} aria-label="Mint a key">
      <div class="row">
        <div class="field">
          <label for="key-name">Name</label>
          <input id="key-name" value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </div>
        <div class="field">
          <label for="key-owner">Owner (optional)</label>
          <input id="key-owner" value={owner} onInput={(e) => setOwner(e.currentTarget.value)} />
        </div>
        <div class="field">
          <label for="key-expires">Expires (optional)</label>
          <input id="key-expires" type="datetime-local" value={expires} onInput={(e) => setExpires(e.currentTarget.value)} />
        </div>
      </div>
      {scopeNames.length ? (
        <fieldset class="scopes">
          <legend>Scopes</legend>
          {scopeNames.map((s) => (
            <label key={s} class="scope">
              <input
                type="checkbox"
                checked={scopes.includes(s)}
                onChange={(e) => setScopes(e.currentTarget.checked ? [...scopes, s] : scopes.filter((x) => x !== s))}
              />{' '}
              <span class="mono">{s}</span>
            </label>
          ))}
        </fieldset>
      ) : (
        <div class="field">
          <label for="key-scopes">Scopes (separated by spaces or commas)</label>
          <input id="key-scopes" value={typedScopes} onInput={(e) => setTypedScopes(e.currentTarget.value)} />
        </div>
      )}
      <ErrorNote error={error} />
      <button type="submit" disabled={busy}>
        {busy ? 'Minting…' : 'Mint key'}
      </button>
    </form>
  );
}

function keyState(k: KeyMeta): [boolean | null, string] {
  if (k.revoked_at) return [false, 'revoked'];
  if (k.expires_at && Date.parse(k.expires_at) <= Date.now()) return [false, 'expired'];
  return [true, 'active'];
}

function KeysSection() {
  const keys = useApi<{ keys: KeyMeta[] }>('/admin/api-keys');
  const [minted, setMinted] = useState<Minted>();
  const [confirm, setConfirm] = useState<{ id: string; action: 'revoke' | 'rotate' }>();
  const [error, setError] = useState<string>();
  const [note, setNote] = useState<string>();
  // The confirmation's buttons vanish after the action: focus goes to the outcome, not the page top.
  const noteRef = useRef<HTMLParagraphElement>(null);
  const act = async (k: KeyMeta, action: 'revoke' | 'rotate') => {
    setError(undefined);
    try {
      if (action === 'revoke') {
        await api(`/admin/api-keys/${k.key_id}`, { method: 'DELETE' });
        setNote(`“${k.name}” (${k.key_id}) was revoked; it is refused from now on.`);
      } else {
        setMinted(await api<Minted>(`/admin/api-keys/${k.key_id}/rotate`, { method: 'POST' }));
        setNote(`“${k.name}” (${k.key_id}) has a new token; the old one is refused from now on.`);
      }
      setConfirm(undefined);
      keys.reload();
      noteRef.current?.focus();
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <Section title="API keys" id="keys">
      <MintForm
        onMinted={(m) => {
          setMinted(m);
          setNote(undefined);
          keys.reload();
        }}
      />
      {minted && <TokenOnce minted={minted} onDone={() => setMinted(undefined)} />}
      <ErrorNote error={keys.error ?? error} />
      <p role="status" class="note" tabIndex={-1} ref={noteRef}>
        {note ?? ''}
      </p>
      {keys.data &&
        (keys.data.keys.length === 0 ? (
          <p class="note">No key has been minted yet.</p>
        ) : (
          <table data-testid="key-list">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Key id</th>
                <th scope="col">Scopes</th>
                <th scope="col">State</th>
                <th scope="col">Created / last used</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {keys.data.keys.map((k) => {
                const [ok, word] = keyState(k);
                const asking = confirm?.id === k.key_id ? confirm.action : undefined;
                return (
                  <tr key={k.key_id} data-key={k.key_id}>
                    <td>
                      {k.name}
                      {k.owner && <div class="hint">{k.owner}</div>}
                    </td>
                    <td class="mono">{k.key_id}</td>
                    <td class="mono">{k.scopes.join(' ')}</td>
                    <td>
                      <Status ok={ok}>{word}</Status>
                      {k.expires_at && <div class="hint">expires {when(k.expires_at)}</div>}
                    </td>
                    <td>
                      {when(k.created_at)}
                      <div class="hint">{k.last_used_at ? `used ${when(k.last_used_at)}` : 'never used'}</div>
                    </td>
                    <td>
                      {k.revoked_at ? (
                        <span class="hint">—</span>
                      ) : asking ? (
                        <div class="row">
                          <span>
                            {asking === 'revoke' ? 'Revoke' : 'Rotate'} “{k.name}”?
                          </span>
                          <button type="button" onClick={() => void act(k, asking)}>
                            Yes, {asking}
                          </button>
                          <button type="button" class="quiet" onClick={() => setConfirm(undefined)}>
                            Cancel
                          </button>
                        </div>
                      ) : (
                        <div class="row">
                          <button type="button" class="quiet" aria-label={`Rotate ${k.name}`} onClick={() => setConfirm({ id: k.key_id, action: 'rotate' })}>
                            Rotate
                          </button>
                          <button type="button" class="quiet" aria-label={`Revoke ${k.name}`} onClick={() => setConfirm({ id: k.key_id, action: 'revoke' })}>
                            Revoke
                          </button>
                        </div>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        ))}
    </Section>
  );
}

function sourceWord(source: string): string {
  if (source === 'env') return 'environment';
  if (source === 'default') return 'default';
  return `file ${source}`;
}

function SettingsSection() {
  const settings = useApi<{ config: Record<string, unknown>; source: Record<string, string>; problems: string[] }>('/admin/settings');
  const [filter, setFilter] = useState('');
  const [onlySet, setOnlySet] = useState(true);
  const [snippet, setSnippet] = useState<string>();
  const [error, setError] = useState<string>();
  const [copied, setCopied] = useState<string>();
  const rows = useMemo(() => {
    if (!settings.data) return [];
    const f = filter.trim().toUpperCase();
    return Object.keys(settings.data.config)
      .sort()
      .filter((k) => (!onlySet || settings.data!.source[k] !== 'default') && (!f || k.includes(f)))
      .map((k) => ({ key: k, value: settings.data!.config[k], source: settings.data!.source[k] ?? 'default' }));
  }, [settings.data, filter, onlySet]);
  const exportSnippet = async () => {
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
          {p}
        </p>
      ))}
      <div class="row">
        <div class="field">
          <label for="settings-filter">Filter by key</label>
          <input id="settings-filter" type="search" value={filter} onInput={(e) => setFilter(e.currentTarget.value)} />
        </div>
        <div class="field">
          <label>
            <input type="checkbox" checked={onlySet} onChange={(e) => setOnlySet(e.currentTarget.checked)} /> Only keys not at their default
          </label>
        </div>
        <div class="field">
          <button type="button" class="quiet" onClick={() => void exportSnippet()}>
            Export as env snippet
          </button>
        </div>
      </div>
      {snippet !== undefined && (
        <div class="preview">
          <p>The settings not at their default as an env file; secrets are shown as ***.</p>
          <pre class="mono snippet" data-testid="env-snippet" tabIndex={0} aria-label="Env snippet">
            {snippet}
          </pre>
          <div class="row">
            <button type="button" onClick={() => navigator.clipboard.writeText(snippet).then(() => setCopied('Copied.'), () => setCopied('The browser refused the clipboard.'))}>
              Copy snippet
            </button>
            <button type="button" class="quiet" onClick={() => setSnippet(undefined)}>
              Close
            </button>
            <span role="status" class="hint">
              {copied ?? ''}
            </span>
          </div>
        </div>
      )}
      {settings.data && (
        <table data-testid="settings-table">
          <thead>
            <tr>
              <th scope="col">Key</th>
              <th scope="col">Value</th>
              <th scope="col">Source</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.key} data-setting={r.key}>
                <td class="mono">{r.key}</td>
                <td class="mono">{r.value === null || r.value === undefined ? <span class="hint">unset</span> : typeof r.value === 'string' ? r.value : JSON.stringify(r.value)}</td>
                <td>
                  <Status ok={null}>{sourceWord(r.source)}</Status>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Section>
  );
}

function details(r: AuditRecord): string {
  return Object.entries(r)
    .filter(([k]) => k !== 'id' && k !== 'ts' && k !== 'event')
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');
}

function AuditSection() {
  const [live, setLive] = useState(true);
  const audit = useApi<{ records: AuditRecord[] }>('/admin/logs?limit=50', live ? AUDIT_REFRESH_MS : undefined);
  return (
    <Section title="Audit log" id="audit">
      <div class="row">
        <label>
          <input type="checkbox" checked={live} onChange={(e) => setLive(e.currentTarget.checked)} /> Live tail (every {AUDIT_REFRESH_MS / 1000} s)
        </label>
        <button type="button" class="quiet" onClick={audit.reload}>
          Refresh now
        </button>
      </div>
      <p class="hint">Kept only while AUDIT_LOG_ENABLED is true.</p>
      <ErrorNote error={audit.error} />
      {audit.data &&
        (audit.data.records.length === 0 ? (
          <p class="note">No audit record yet.</p>
        ) : (
          <table data-testid="audit-log">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Event</th>
                <th scope="col">Details</th>
              </tr>
            </thead>
            <tbody>
              {audit.data.records.map((r) => (
                <tr key={r.id}>
                  <td>{when(r.ts)}</td>
                  <td class="mono">{r.event}</td>
                  <td class="mono hint">{details(r)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ))}
    </Section>
  );
}

export function KeysPage() {
  return (
    <>
      <KeysSection />
      <SettingsSection />
      <AuditSection />
    </>
  );
}
