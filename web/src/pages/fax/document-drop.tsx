import { useState } from 'preact/hooks';
import type { Ref } from 'preact';
import { kb } from '../../format.js';

const ACCEPT = '.pdf,.txt,.png,.jpg,.jpeg,.tif,.tiff,application/pdf,text/plain,image/png,image/jpeg,image/tiff';

/** The documents to fax (several are merged in order): dropped on the zone or chosen with the file picker. */
export function DocumentDrop({ files, onChoose, input }: { files: File[]; onChoose: (files: File[]) => void; input: Ref<HTMLInputElement> }) {
  const [over, setOver] = useState(false);
  return (
    <div
      class={over ? 'drop over' : 'drop'}
      onDragOver={(e) => (e.preventDefault(), setOver(true))}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => {
        e.preventDefault();
        setOver(false);
        onChoose([...(e.dataTransfer?.files ?? [])]);
      }}
      data-testid="dropzone"
    >
      <label for="fax-file">Document</label> <span class="hint">drop files here, or choose them (several are sent as one fax, in order):</span>{' '}
      <input id="fax-file" ref={input} type="file" multiple accept={ACCEPT} onChange={(e) => onChoose([...(e.currentTarget.files ?? [])])} />
      {files.map((file) => (
        <p class="hint" data-testid="chosen-file" key={file.name}>
          {file.name}, {kb(file.size)}
        </p>
      ))}
    </div>
  );
}
