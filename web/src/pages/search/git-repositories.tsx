import { useState } from 'preact/hooks';
import { sb, unwrap, type ApiResponse } from '../../api.js';
import { ConfirmDialog } from '../../components/confirm-dialog.js';
import { ActionOutcome, ErrorNote } from '../../components/notes.js';
import { Section } from '../../components/section.js';
import { Status } from '../../components/status.js';
import { Table, type Column } from '../../components/table.js';
import { when } from '../../format.js';
import { useAction } from '../../hooks/use-action.js';
import { useGet } from '../../hooks/use-api.js';
import { GitRepositoryForm } from './git-repository-form.js';

type GitRepository = ApiResponse<'/api/repos', 'get'>['repositories'][number];
type Revision = GitRepository['revisions'][number];

/** A remote as shown: the password of any URL hidden, and the whole user part of an http(s) one (often a token). */
export function maskedRemote(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)([^@/]*)@/i, (_, scheme: string, user: string) => (/^https?:/i.test(scheme) ? `${scheme}***@` : `${scheme}${user.replace(/:.*$/, ':***')}@`));
}

const short = (commit: string | null) => (commit ? commit.slice(0, 12) : '—');

function RevisionList({ repo }: { repo: GitRepository }) {
  if (!repo.revisions.length) return <span class="note">none yet</span>;
  return (
    <ul class="plain" aria-label={`Revisions of ${repo.name}`}>
      {repo.revisions.map((r) => (
        <li key={r.name} data-revision={r.name}>
          <span class="mono">{r.name}</span> <span class="hint">{r.kind}{r.name === repo.default_branch ? ', default' : ''}</span> <span class="mono" title={r.commit}>{short(r.commit)}</span>{' '}
          <Status ok={r.indexed_commit === r.commit ? true : r.indexed_commit ? null : false}>{r.indexed_commit === r.commit ? 'indexed' : r.indexed_commit ? `indexed at ${short(r.indexed_commit)}` : 'not indexed'}</Status>
        </li>
      ))}
    </ul>
  );
}

const COLUMNS: Column<GitRepository>[] = [
  { header: 'Name', class: 'mono', rowHeader: true, cell: (r) => r.name },
  {
    header: 'Remote',
    cell: (r) => (
      <>
        <span class="mono hash">{maskedRemote(r.url)}</span>
        {(r.credential || r.credential_env) && <div class="hint">credential: {r.credential ? 'kept secret' : <code>{r.credential_env}</code>}</div>}
      </>
    ),
  },
  { header: 'Branches and tags', class: 'mono', cell: (r) => (r.revs.length ? r.revs.join(' ') : <span class="note">default branch</span>) },
  { header: 'Revisions', cell: (r) => <RevisionList repo={r} /> },
  { header: 'Last fetch', cell: (r) => when(r.fetched_at) },
  { header: 'Last error', cell: (r) => (r.error ? <span class="error-inline">{r.error}</span> : '—') },
];

/** What a fetch changed, in a sentence: which revisions moved (and were indexed), which did not. */
function fetchReport(before: Revision[], after: GitRepository): string {
  const was = new Map(before.map((r) => [r.name, r.indexed_commit]));
  const moved = after.revisions.filter((r) => was.get(r.name) !== r.indexed_commit).map((r) => `${r.name} → ${short(r.commit)}`);
  const same = after.revisions.filter((r) => was.get(r.name) === r.indexed_commit).map((r) => r.name);
  return `Fetched ${after.name}: ${moved.length ? `indexed ${moved.join(', ')}` : 'nothing moved'}${moved.length && same.length ? `; unchanged ${same.join(', ')}` : ''}.`;
}

/**
 * Git repositories (#/search/repositories, scope search:admin): each remote (credentials masked),
 * its branches and tags, every indexed revision; add, fetch now and remove. A key without the
 * scope sees why and nothing it could not use.
 */
export function GitRepositories() {
  const list = useGet('/api/repos', {});
  const action = useAction();
  const [removing, setRemoving] = useState<string>();
  if (list.errorCode === 'insufficient_scope')
    return (
      <Section title="Git repositories" id="git-repositories">
        <p class="note" data-testid="git-needs-admin">
          This session's key lacks the <code>search:admin</code> scope: git repositories are listed, added, fetched and removed with a key that has it.
        </p>
      </Section>
    );
  const busy = action.busy !== null;
  const fetchNow = (repo: GitRepository) =>
    action.run(
      async () => {
        try {
          const fetched = await unwrap(sb.POST('/api/repos/{name}/fetch', { params: { path: { name: repo.name } } }));
          return fetchReport(repo.revisions, fetched);
        } finally {
          list.reload();
        }
      },
      { label: `fetch ${repo.name}`, prefixError: true },
    );
  const remove = (name: string) => {
    setRemoving(undefined);
    void action.run(
      async () => {
        await unwrap(sb.DELETE('/api/repos/{name}', { params: { path: { name } } }));
        list.reload();
        return `Removed ${name}: its mirror and trees are gone and searches no longer reach it.`;
      },
      { label: `remove ${name}`, prefixError: true },
    );
  };
  const buttons = (r: GitRepository) => {
    const fetching = action.busy === `fetch ${r.name}`;
    const label = fetching ? 'Fetching…' : 'Fetch now';
    return (
      <>
        <button type="button" class="quiet" disabled={busy} aria-busy={fetching} onClick={() => void fetchNow(r)} aria-label={`${label} ${r.name}`}>
          {label}
        </button>
        <button type="button" class="quiet" disabled={busy} onClick={() => setRemoving(r.name)} aria-label={`Remove ${r.name}`}>
          Remove
        </button>
      </>
    );
  };
  return (
    <Section title="Git repositories" id="git-repositories">
      <p class="hint">
        Remotes code search clones into <code>DATA_DIR</code> and indexes: the default branch, and each branch and tag chosen, searched with <code>rev:</code>. <code>GIT_FETCH_MINUTES</code> fetches them on a schedule.
      </p>
      <ErrorNote error={list.error} />
      {list.data && <Table testId="git-repositories" rows={list.data.repositories} columns={COLUMNS} rowKey={(r) => r.name} rowAttributes={(r) => ({ 'data-repo': r.name })} actions={{ label: (r) => `Actions for ${r.name}`, cell: buttons }} empty="No git repository yet." />}
      <p role="status" class="note">
        {action.busy?.startsWith('fetch ') ? `Fetching ${action.busy.slice(6)}: the answer comes once the revisions that moved are indexed…` : ''}
      </p>
      <ActionOutcome action={action} />
      <GitRepositoryForm onAdded={list.reload} />
      {removing && (
        <ConfirmDialog title={`Remove ${removing}?`} confirmLabel={`Remove ${removing}`} onConfirm={() => remove(removing)} onClose={() => setRemoving(undefined)}>
          <p>
            The mirror of <strong>{removing}</strong> and its exported trees are deleted, and searches no longer reach it. The remote itself is untouched.
          </p>
        </ConfirmDialog>
      )}
    </Section>
  );
}
