import { useState } from 'preact/hooks';
import { sb, unwrap, type MintedApiKey } from '../../../api.js';
import { Field } from '../../../components/field.js';
import { ErrorNote } from '../../../components/notes.js';
import { useAction } from '../../../hooks/use-action.js';
import { SCOPES } from '../../../scopes.js';

/** Mint a key: name, owner, expiry and scopes; what was typed stays when the API refuses. */
export function MintForm({ onMinted }: { onMinted: (m: MintedApiKey) => void }) {
  const [name, setName] = useState('');
  const [owner, setOwner] = useState('');
  const [scopes, setScopes] = useState<string[]>([]);
  const [expires, setExpires] = useState('');
  const action = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      const body = { name: name.trim(), scopes, owner: owner.trim() || undefined, expires_at: expires ? new Date(expires).toISOString() : undefined };
      const minted = await unwrap(sb.POST('/admin/api-keys', { body }));
      setName('');
      setOwner('');
      setScopes([]);
      setExpires('');
      onMinted(minted);
    });
  };
  return (
    <form onSubmit={submit} aria-labelledby="mint-h">
      <h3 id="mint-h">Mint a key</h3>
      <div class="row">
        <Field id="key-name" label="Name">
          <input id="key-name" value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </Field>
        <Field id="key-owner" label={<>Owner <span class="hint">(optional)</span></>}>
          <input id="key-owner" value={owner} onInput={(e) => setOwner(e.currentTarget.value)} />
        </Field>
        <Field id="key-expires" label={<>Expires <span class="hint">(optional)</span></>}>
          <input id="key-expires" type="datetime-local" value={expires} onInput={(e) => setExpires(e.currentTarget.value)} />
        </Field>
      </div>
      <fieldset class="scopes">
        <legend>Scopes</legend>
        {SCOPES.map((s) => (
          <label key={s.name} class="check">
            <input type="checkbox" checked={scopes.includes(s.name)} onChange={(e) => setScopes(e.currentTarget.checked ? [...scopes, s.name] : scopes.filter((x) => x !== s.name))} />{' '}
            <span class="mono">{s.name}</span> <span class="hint">{s.grants}</span>
          </label>
        ))}
      </fieldset>
      <button type="submit" disabled={action.busy !== null}>
        Mint key
      </button>
      <ErrorNote error={action.error} />
    </form>
  );
}
