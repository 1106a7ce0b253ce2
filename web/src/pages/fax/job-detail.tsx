import { useEffect, useState } from 'preact/hooks';
import { saveBlob, sb, unwrap, type FaxJobDetail } from '../../api.js';
import { ActionOutcome, WhenLoaded } from '../../components/notes.js';
import { Section } from '../../components/section.js';
import { useAction } from '../../hooks/use-action.js';
import { useGet } from '../../hooks/use-api.js';
import { href, navigate } from '../../router.js';
import { FaxStatus, FINAL } from './fax-status.js';
import { Timeline } from './timeline.js';

function Facts({ job }: { job: FaxJobDetail }) {
  return (
    <dl class="kv" data-testid="job-detail">
      <dt>Status</dt>
      <dd>
        <FaxStatus status={job.status} /> {!FINAL.has(job.status) && <span class="hint">(updating)</span>}
      </dd>
      <dt>To</dt>
      <dd class="mono">{job.to}</dd>
      <dt>Pages</dt>
      <dd>{job.pages ?? '—'}</dd>
      <dt>Backend</dt>
      <dd>{job.backend}</dd>
      <dt>Dispatch</dt>
      <dd>{job.dispatch_state}</dd>
      <dt>Attempts</dt>
      <dd>{job.attempts}</dd>
      {job.provider_sid && (
        <>
          <dt>Provider id</dt>
          <dd class="mono">{job.provider_sid}</dd>
        </>
      )}
      {job.error && (
        <>
          <dt>Error</dt>
          <dd>{job.error}</dd>
        </>
      )}
      {job.document_sha256 && (
        <>
          <dt>Document SHA-256</dt>
          <dd class="mono hash">{job.document_sha256}</dd>
        </>
      )}
    </dl>
  );
}

/** A job's facts and timeline, read again every 2 seconds until it is final; its document and report. */
export function JobDetailView({ id }: { id: string }) {
  const [live, setLive] = useState(true);
  const job = useGet('/admin/fax-jobs/{id}', { path: { id } }, live ? 2000 : undefined);
  const download = useAction();
  const change = useAction();
  const final = job.data !== undefined && FINAL.has(job.data.status);
  useEffect(() => {
    setLive(!final);
  }, [final]);
  const path = { params: { path: { id } } };
  // Cancel answers 200 when the job ended at once, 202 when its provider was asked to stop the send.
  const cancel = () =>
    change.run(async () => {
      const answer = await sb.POST('/fax/{id}/cancel', path);
      await unwrap(answer);
      job.reload();
      return answer.response.status === 202 ? 'The provider was asked to stop the send; the job ends as it reports.' : 'Canceled.';
    });
  const resend = () =>
    change.run(async () => {
      const again = await unwrap(sb.POST('/fax/{id}/resend', path));
      navigate(`fax/jobs/${again.id}`);
    });
  const save = (path: string, filename: string) => download.run(async () => saveBlob(await sb.download(path, { params: { id } }), filename));
  return (
    <>
      <p>
        <a href={href('fax')}>← All jobs</a>
      </p>
      <Section title={`Job ${id}`} id="job">
        <WhenLoaded loaded={job} error={download.error}>
          {(d) => (
            <>
              <Facts job={d} />
              <h3>Timeline</h3>
              <Timeline job={d} />
              <div class="row">
                <button type="button" class="quiet" disabled={!d.pdf_available} onClick={() => save('/admin/fax-jobs/{id}/pdf', `fax-${d.id}.pdf`)}>
                  Download the document
                </button>
                <button type="button" class="quiet" disabled={!FINAL.has(d.status)} onClick={() => save('/fax/{id}/report', `fax-${d.id}-report.pdf`)}>
                  Transmission report
                </button>
                {!FINAL.has(d.status) && (
                  <button type="button" class="quiet" disabled={change.busy !== null} onClick={() => void cancel()}>
                    Cancel the fax
                  </button>
                )}
                {FINAL.has(d.status) && d.pdf_available && (
                  <button type="button" class="quiet" disabled={change.busy !== null} onClick={() => void resend()}>
                    Resend
                  </button>
                )}
              </div>
              <ActionOutcome action={change} />
            </>
          )}
        </WhenLoaded>
      </Section>
    </>
  );
}
