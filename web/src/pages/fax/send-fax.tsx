import { useRef, useState } from 'preact/hooks';
import { sb, type PreparedFax } from '../../api.js';
import { ErrorNote } from '../../components/notes.js';
import { Section } from '../../components/section.js';
import { kb } from '../../format.js';
import { useAction } from '../../hooks/use-action.js';
import { navigate } from '../../router.js';
import { Field } from '../../components/field.js';
import { DocumentDrop } from './document-drop.js';
import { NumberField } from './number-field.js';
import { PHONE_RULE, normalizePhone } from './phone.js';
import { PreparedPreview } from './prepared-preview.js';

/** Send: number and document, then a preview with the page count (POST /fax/prepare), then send by approval. */
export function SendFax() {
  const [to, setTo] = useState('');
  const [touched, setTouched] = useState(false);
  const [file, setFile] = useState<File | null>(null);
  const [progress, setProgress] = useState(0);
  const [prepared, setPrepared] = useState<PreparedFax | null>(null);
  /** A local time from the datetime-local field; empty sends now. */
  const [sendAt, setSendAt] = useState('');
  const action = useAction();
  const input = useRef<HTMLInputElement>(null);
  const normalized = normalizePhone(to);

  const choose = (f: File | null | undefined) => {
    setFile(f ?? null);
    setPrepared(null);
    action.setError(undefined);
  };

  const prepare = (e: Event) => {
    e.preventDefault();
    setTouched(true);
    if (!normalized) return action.setError(`The number: ${PHONE_RULE}`);
    if (!file) return action.setError('Choose a document to send (PDF, text, PNG, JPEG or TIFF).');
    setProgress(0);
    void action.run(async () => setPrepared(await sb.prepareFax({ to: normalized, file, filename: file.name, onProgress: setProgress })), { label: 'prepare' });
  };

  const send = (approved: PreparedFax) =>
    action.run(
      async () => {
        const job = await sb.sendApproved(approved.approval_id, { sha256: approved.sha256, ...(sendAt ? { send_at: new Date(sendAt).toISOString() } : {}) });
        setPrepared(null);
        setFile(null);
        setTo('');
        setSendAt('');
        setTouched(false);
        if (input.current) input.current.value = '';
        navigate(`fax/jobs/${job.id}`);
      },
      { label: 'send' },
    );

  const uploading = action.busy === 'prepare' && progress < 1;
  const working = action.busy === 'send' ? 'Sending…' : !file ? '' : uploading ? `Uploading ${file.name} (${kb(file.size)})…` : `Uploaded ${file.name}; the gateway is checking it and counting its pages…`;
  return (
    <Section title="Send a fax" id="send">
      <form onSubmit={prepare} noValidate>
        <NumberField value={to} touched={touched} onInput={(v) => (setTo(v), setPrepared(null))} onBlur={() => setTouched(true)} />
        <DocumentDrop file={file} onChoose={choose} input={input} />
        <Field id="send-at" label={<>Send at <span class="hint">(optional; empty sends now)</span></>}>
          <input id="send-at" type="datetime-local" value={sendAt} onInput={(e) => setSendAt(e.currentTarget.value)} />
        </Field>
        <div class="row">
          <button type="submit" disabled={action.busy !== null}>
            Check document and count pages
          </button>
        </div>
      </form>
      {action.busy && (
        <p role="status" class="note">
          {uploading ? <progress aria-label="Upload" max={1} value={progress} /> : <progress aria-label="Working" />} {working}
        </p>
      )}
      <ErrorNote error={action.error} />
      {prepared && <PreparedPreview prepared={prepared} busy={action.busy !== null} onSend={() => void send(prepared)} onChange={() => setPrepared(null)} />}
    </Section>
  );
}
