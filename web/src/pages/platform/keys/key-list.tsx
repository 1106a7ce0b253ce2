import { useState } from 'preact/hooks';
import { sb, unwrap, type ApiKey, type MintedApiKey } from '../../../api.js';
import { WhenLoaded } from '../../../components/notes.js';
import { Section } from '../../../components/section.js';
import { Status } from '../../../components/status.js';
import { Table, type Column } from '../../../components/table.js';
import { when } from '../../../format.js';
import { useAction } from '../../../hooks/use-action.js';
import { useGet } from '../../../hooks/use-api.js';
import { MintForm } from './mint-form.js';
import { TokenOnce } from './token-once.js';

type KeyAction = 'rotate' | 'revoke';

const COLUMNS: Column<ApiKey>[] = [
  {
    header: 'Name',
    cell: (k) => (
      <>
        {k.name}
        {k.owner && <div class="hint">{k.owner}</div>}
      </>
    ),
  },
  { header: 'Key id', class: 'mono', cell: (k) => k.key_id },
  { header: 'Scopes', class: 'mono', cell: (k) => k.scopes.join(' ') },
  { header: 'Created', cell: (k) => when(k.created_at) },
  { header: 'Expires', cell: (k) => (k.expires_at ? when(k.expires_at) : 'never') },
  { header: 'Last used', cell: (k) => when(k.last_used_at) },
  { header: 'State', cell: (k) => (k.revoked_at ? <Status ok={false}>revoked</Status> : <Status ok={true}>active</Status>) },
];

/** The API keys with rotate and revoke (each asked first), the token of a new or rotated key once, and the mint form. */
export function KeyList() {
  const keys = useGet('/admin/api-keys', {});
  const [minted, setMinted] = useState<MintedApiKey | null>(null);
  const [confirm, setConfirm] = useState<{ id: string; action: KeyAction } | null>(null);
  const action = useAction();
  const act = (keyId: string, what: KeyAction) =>
    action.run(async () => {
      if (what === 'rotate') setMinted(await unwrap(sb.POST('/admin/api-keys/{keyId}/rotate', { params: { path: { keyId } } })));
      else await unwrap(sb.DELETE('/admin/api-keys/{keyId}', { params: { path: { keyId } } }));
      setConfirm(null);
      keys.reload();
    });
  const actions = (k: ApiKey) => {
    if (k.revoked_at) return null;
    if (confirm?.id !== k.key_id)
      return (
        <>
          <button type="button" class="quiet" aria-label={`Rotate ${k.name}`} onClick={() => setConfirm({ id: k.key_id, action: 'rotate' })}>
            Rotate
          </button>
          <button type="button" class="quiet" aria-label={`Revoke ${k.name}`} onClick={() => setConfirm({ id: k.key_id, action: 'revoke' })}>
            Revoke
          </button>
        </>
      );
    return (
      <>
        <span>
          {confirm.action === 'rotate' ? 'Rotate' : 'Revoke'} “{k.name}”?
        </span>
        <button type="button" onClick={() => act(k.key_id, confirm.action)}>
          Yes, {confirm.action}
        </button>
        <button type="button" class="quiet" onClick={() => setConfirm(null)}>
          Cancel
        </button>
      </>
    );
  };
  return (
    <Section title="API keys" id="keys">
      {minted && <TokenOnce minted={minted} onDone={() => setMinted(null)} />}
      <WhenLoaded loaded={keys} error={action.error}>
        {(data) => (
          <Table
            testId="keys"
            rows={data.keys}
            columns={COLUMNS}
            rowKey={(k) => k.key_id}
            actions={{ label: (k) => `Actions for ${k.name}`, cell: actions }}
            empty="No key yet: the API answers callers on this machine without one. The first key must include admin."
          />
        )}
      </WhenLoaded>
      <MintForm onMinted={(m) => (setMinted(m), keys.reload())} />
    </Section>
  );
}
