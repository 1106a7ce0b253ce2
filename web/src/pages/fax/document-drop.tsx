import { useState } from 'preact/hooks';
import type { Ref } from 'preact';
import { kb } from '../../format.js';

const ACCEPT = '.pdf,.txt,.png,.jpg,.jpeg,.tif,.tiff,application/pdf,text/plain,image/png,image/jpeg,image/tiff';

/** The document to fax: dropped on the zone or chosen with the file picker. */
export function DocumentDrop({ file, onChoose, input }: { file: File | null; onChoose: (f: File | null | undefined) => void; input: Ref<HTMLInputElement> }) {
  const [over, setOver] = useState(false);
  return (
    <div
      class={over ? 'drop over' : 'drop'}
      onDragOver={(e) => (e.preventDefault(), setOver(true))}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => {
        e.preventDefault();
        setOver(false);
        onChoose(e.dataTransfer?.files[0]);
      }}
      data-testid="dropzone"
    >
      <label for="fax-file">Document</label> <span class="hint">drop a file here, or choose one:</span>{' '}
      <input id="fax-file" ref={input} type="file" accept={ACCEPT} onChange={(e) => onChoose(e.currentTarget.files?.[0])} />
      {file && (
        <p class="hint" data-testid="chosen-file">
          {file.name}, {kb(file.size)}
        </p>
      )}
    </div>
  );
}
