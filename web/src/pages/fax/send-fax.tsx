import { useRef, useState } from 'preact/hooks';
import { sb, type FaxBatch, type PreparedFax } from '../../api.js';
import { ErrorNote } from '../../components/notes.js';
import { Section } from '../../components/section.js';
import { kb } from '../../format.js';
import { useAction } from '../../hooks/use-action.js';
import { navigate } from '../../router.js';
import { Field } from '../../components/field.js';
import { DocumentDrop } from './document-drop.js';
import { NumberField } from './number-field.js';
import { BatchSent } from './batch-sent.js';
import { PHONE_RULE, normalizePhone, splitNumbers } from './phone.js';
import { PreparedPreview } from './prepared-preview.js';

/**
 * Send: number and document, then a preview with the page count (POST /fax/prepare), then send by
 * approval. Several numbers or documents are sent at once (POST /fax: merged in order, a batch of
 * one job per number) and the jobs listed.
 */
export function SendFax() {
  const [to, setTo] = useState('');
  const [touched, setTouched] = useState(false);
  const [files, setFiles] = useState<File[]>([]);
  const [progress, setProgress] = useState(0);
  const [prepared, setPrepared] = useState<PreparedFax | null>(null);
  const [batch, setBatch] = useState<FaxBatch | null>(null);
  /** A local time from the datetime-local field; empty sends now. */
  const [sendAt, setSendAt] = useState('');
  const action = useAction();
  const input = useRef<HTMLInputElement>(null);
  const numbers = splitNumbers(to).map(normalizePhone);
  const file = files[0] ?? null;
  const several = numbers.length > 1 || files.length > 1;

  const choose = (chosen: File[]) => {
    setFiles(chosen);
    setPrepared(null);
    action.setError(undefined);
  };

  const prepare = (e: Event) => {
    e.preventDefault();
    setTouched(true);
    if (!numbers.length || numbers.some((n) => !n)) return action.setError(`The number: ${PHONE_RULE}`);
    if (!file) return action.setError('Choose a document to send (PDF, text, PNG, JPEG or TIFF).');
    setProgress(0);
    const valid = numbers as string[];
    if (several) return void sendAll(valid, files);
    void action.run(async () => setPrepared(await sb.prepareFax({ to: valid[0]!, file, filename: file.name, onProgress: setProgress })), { label: 'prepare' });
  };

  const sendAtIso = () => (sendAt ? new Date(sendAt).toISOString() : undefined);

  const reset = () => {
    setPrepared(null);
    setFiles([]);
    setTo('');
    setSendAt('');
    setTouched(false);
    if (input.current) input.current.value = '';
  };

  const sendAll = (valid: string[], chosen: File[]) =>
    action.run(
      async () => {
        const parts = chosen.map((f) => ({ file: f, filename: f.name }));
        if (valid.length > 1) {
          const sent = await sb.sendFaxBatch({ to: valid, files: parts, ...(sendAtIso() ? { sendAt: sendAtIso() } : {}) });
          reset();
          setBatch(sent);
          return;
        }
        const job = await sb.sendFax({ to: valid[0]!, file: chosen[0]!, filename: chosen[0]!.name, files: parts.slice(1), ...(sendAtIso() ? { sendAt: sendAtIso() } : {}) });
        reset();
        navigate(`fax/jobs/${job.id}`);
      },
      { label: 'send' },
    );

  const send = (approved: PreparedFax) =>
    action.run(
      async () => {
        const job = await sb.sendApproved(approved.approval_id, { sha256: approved.sha256, ...(sendAtIso() ? { send_at: sendAtIso() } : {}) });
        reset();
        navigate(`fax/jobs/${job.id}`);
      },
      { label: 'send' },
    );

  const uploading = action.busy === 'prepare' && progress < 1;
  const working = action.busy === 'send' ? 'Sending…' : !file ? '' : uploading ? `Uploading ${file.name} (${kb(file.size)})…` : `Uploaded ${file.name}; the gateway is checking it and counting its pages…`;
  const sendLabel = numbers.length > 1 ? `Send to ${numbers.length} numbers` : `Send ${files.length} documents as one fax`;
  return (
    <Section title="Send a fax" id="send">
      <form onSubmit={prepare} noValidate>
        <NumberField value={to} touched={touched} onInput={(v) => (setTo(v), setPrepared(null), setBatch(null))} onBlur={() => setTouched(true)} />
        <DocumentDrop files={files} onChoose={choose} input={input} />
        <Field id="send-at" label={<>Send at <span class="hint">(optional; empty sends now)</span></>}>
          <input id="send-at" type="datetime-local" value={sendAt} onInput={(e) => setSendAt(e.currentTarget.value)} />
        </Field>
        <div class="row">
          <button type="submit" disabled={action.busy !== null}>
            {several ? sendLabel : 'Check document and count pages'}
          </button>
        </div>
      </form>
      {action.busy && (
        <p role="status" class="note">
          {uploading ? <progress aria-label="Upload" max={1} value={progress} /> : <progress aria-label="Working" />} {working}
        </p>
      )}
      <ErrorNote error={action.error} />
      {batch && <BatchSent batch={batch} />}
      {prepared && <PreparedPreview prepared={prepared} busy={action.busy !== null} onSend={() => void send(prepared)} onChange={() => setPrepared(null)} />}
    </Section>
  );
}
