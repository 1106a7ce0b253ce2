import { useState } from 'preact/hooks';
import { sb, unwrap, type ApiResponse } from '../../../api.js';
import { ConfirmDialog } from '../../../components/confirm-dialog.js';
import { ErrorNote } from '../../../components/notes.js';
import { Table, type Column } from '../../../components/table.js';
import { when } from '../../../format.js';
import { useAction } from '../../../hooks/use-action.js';
import { useGet } from '../../../hooks/use-api.js';
import { LIST_REFRESH_MS } from './plugin-state.js';

type PackageVersion = ApiResponse<'/plugins/{id}/versions', 'get'>['versions'][number];

const signature = (v: PackageVersion) => (v.signer ? `signed by ${v.signer}` : 'unsigned');

/** A packaged plugin's version, digest, signature and history (GET /plugins/{id}/versions), with rollback after a confirmation; nothing for a plugin that is not a package. */
export function PackageVersions({ id, onChange }: { id: string; onChange: () => void }) {
  const listed = useGet('/plugins/{id}/versions', { path: { id } }, LIST_REFRESH_MS * 5);
  const action = useAction();
  const [target, setTarget] = useState<string | null>(null);
  const data = listed.data;
  if (!data) return null;
  const current = data.versions.find((v) => v.current);
  const rollback = (version: string) => {
    setTarget(null);
    void action.run(
      async () => {
        const done = await unwrap(sb.POST('/plugins/{id}/rollback', { params: { path: { id } }, body: { version } }));
        listed.reload();
        onChange();
        return `Rolled back from ${done.from ?? '—'} to ${done.to} (generation ${done.plugin?.generation ?? '—'}).`;
      },
      { label: version },
    );
  };
  const columns: Column<PackageVersion>[] = [
    { header: 'Version', cell: (v) => <>{v.version}{v.current ? <strong> (current{data.pinned ? ', pinned' : ''})</strong> : null}</> },
    { header: 'Digest', cell: (v) => <span class="mono">{v.digest}</span> },
    { header: 'Signature', cell: signature },
    { header: 'Installed', cell: (v) => `${when(v.installed_at)} by ${v.installed_by}` },
    {
      header: 'Action',
      cell: (v) =>
        v.current ? (
          <span class="hint">—</span>
        ) : (
          <button type="button" class="quiet" disabled={action.busy !== null} onClick={() => setTarget(v.version)}>
            {action.busy === v.version ? 'Working…' : `Roll back to ${v.version}`}
          </button>
        ),
    },
  ];
  return (
    <>
      <h3>Package</h3>
      <dl class="kv">
        <dt>Installed version</dt>
        <dd data-testid="package-version">{data.current ?? '—'}</dd>
        <dt>Digest</dt>
        <dd class="mono" data-testid="package-digest">{current?.digest ?? '—'}</dd>
        <dt>Signature</dt>
        <dd data-testid="package-signature">{current ? signature(current) : '—'}</dd>
      </dl>
      <h3>Version history</h3>
      <ErrorNote error={action.error} />
      <p role="status" class="note">
        {action.note ?? ''}
      </p>
      <Table rows={data.versions} columns={columns} rowKey={(v) => v.version} testId="package-versions" caption="Installed versions, newest first" />
      {target && (
        // Asked first: a rollback starts a new generation of a running plugin.
        <ConfirmDialog title={`Roll ${id} back to ${target}?`} confirmLabel={`Roll back to ${target}`} onConfirm={() => rollback(target)} onClose={() => setTarget(null)}>
          <p>
            Version {target} replaces {data.current ?? 'the current one'} through a new generation; calls in flight finish on the old one.
          </p>
        </ConfirmDialog>
      )}
    </>
  );
}
