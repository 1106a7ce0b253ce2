import { useState } from 'preact/hooks';
import { sb, unwrap, type ApiResponse } from '../../api.js';
import { Field } from '../../components/field.js';
import { ActionOutcome } from '../../components/notes.js';
import { useAction } from '../../hooks/use-action.js';

type Added = ApiResponse<'/api/repos', 'post', 201>;

/** "dev, release/* v2.*" → ["dev", "release/*", "v2.*"]. */
const revList = (text: string) => text.split(/[\s,]+/).filter(Boolean);

/**
 * Add a git repository: name, remote, the branches and tags to index besides the default branch,
 * and a credential that is only ever sent (the API never returns it). The answer comes once the
 * clone and its index runs have ended; a refused add keeps what was typed but the credential.
 */
export function GitRepositoryForm({ onAdded }: { onAdded: () => void }) {
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [revs, setRevs] = useState('');
  const [credential, setCredential] = useState('');
  const [credentialEnv, setCredentialEnv] = useState('');
  const action = useAction();
  const busy = action.busy !== null;
  const add = (e: Event) => {
    e.preventDefault();
    const body = {
      name: name.trim(),
      url: url.trim(),
      revs: revList(revs),
      ...(credential ? { credential } : {}),
      ...(credentialEnv.trim() ? { credential_env: credentialEnv.trim() } : {}),
    };
    void action.run(
      async () => {
        try {
          const added: Added = await unwrap(sb.POST('/api/repos', { body }));
          setName('');
          setUrl('');
          setRevs('');
          setCredentialEnv('');
          return `Added ${added.name}: ${added.revisions.length} revisions indexed (default branch ${added.default_branch ?? '—'}).`;
        } finally {
          // Kept or not, the secret leaves the page; a failed first fetch still keeps the repository.
          setCredential('');
          onAdded();
        }
      },
      { label: 'Cloning and indexing…' },
    );
  };
  return (
    <form onSubmit={add} aria-labelledby="git-add-h">
      <h3 id="git-add-h">Add a git repository</h3>
      <div class="row">
        <Field id="git-name" label="Name">
          <input id="git-name" autoComplete="off" spellcheck={false} value={name} onInput={(e) => setName(e.currentTarget.value)} placeholder="billing" />
        </Field>
        <Field id="git-url" grow label="Remote URL">
          <input id="git-url" autoComplete="off" spellcheck={false} value={url} onInput={(e) => setUrl(e.currentTarget.value)} placeholder="https://git.example.com/acme/billing.git" />
        </Field>
      </div>
      <div class="row">
        <Field id="git-revs" grow label="Branches and tags (names or globs)">
          <input id="git-revs" autoComplete="off" spellcheck={false} value={revs} onInput={(e) => setRevs(e.currentTarget.value)} placeholder="dev, release/*, v2.*" aria-describedby="git-revs-hint" />
        </Field>
        <Field id="git-credential" label="Credential (write-only)">
          <input id="git-credential" type="password" autoComplete="new-password" value={credential} onInput={(e) => setCredential(e.currentTarget.value)} placeholder="user:token" aria-describedby="git-credential-hint" />
        </Field>
        <Field id="git-credential-env" label="or its environment variable">
          <input id="git-credential-env" autoComplete="off" spellcheck={false} value={credentialEnv} onInput={(e) => setCredentialEnv(e.currentTarget.value)} placeholder="BILLING_GIT_TOKEN" />
        </Field>
      </div>
      <p class="hint" id="git-revs-hint">
        The default branch is always indexed; <code>*</code> matches within a segment, <code>**</code> across.
      </p>
      <p class="hint" id="git-credential-hint">
        <code>user:token</code> is sent as HTTP basic auth, anything else as a bearer token, to the remote's origin only. It is kept as a secret and never shown again.
      </p>
      <button type="submit" disabled={busy || !name.trim() || !url.trim()}>
        {busy ? action.busy : 'Add repository'}
      </button>
      <ActionOutcome action={action} />
    </form>
  );
}
