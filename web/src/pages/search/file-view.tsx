import { useEffect, useState } from 'preact/hooks';
import { sb, unwrap } from '../../api.js';
import { ErrorNote } from '../../components/notes.js';

/** Where a result or a definition points: a file of a repository at a line. */
export interface FileLocation {
  repo: string;
  path: string;
  line: number;
}

/** Lines shown above the line opened at, and in all. */
const BEFORE = 10;
const SHOWN = 60;

const IDENTIFIER = /[A-Za-z_$][A-Za-z0-9_$]*/g;

/**
 * A file of the code index opened at a line (`GET /api/files`, a line range); each identifier is a
 * button that goes to its definition (`GET /api/definitions`), opening that file at its line.
 */
export function FileView({ at, onOpen }: { at: FileLocation; onOpen: (to: FileLocation) => void }) {
  const [file, setFile] = useState<{ start_line: number; content: string; total_lines: number }>();
  const [error, setError] = useState<string>();
  const [note, setNote] = useState<string>();
  useEffect(() => {
    setError(undefined);
    setNote(undefined);
    const start = Math.max(1, at.line - BEFORE);
    unwrap(sb.GET('/api/files', { params: { query: { repo: at.repo, path: at.path, start_line: String(start), end_line: String(start + SHOWN - 1) } } })).then(setFile, (err: unknown) => setError((err as Error).message));
  }, [at.repo, at.path, at.line]);
  const goTo = async (name: string) => {
    const found = await unwrap(sb.GET('/api/definitions', { params: { query: { repo: at.repo, name } } })).catch((err: unknown) => {
      setError((err as Error).message);
      return undefined;
    });
    const def = found?.definitions[0];
    if (def) onOpen({ repo: at.repo, path: def.path, line: def.line });
    else if (found) setNote(`No definition of ${name} in the index.`);
  };
  return (
    <div class="file-view" data-testid="file-view">
      <p class="hint">
        <span class="mono">{at.path}</span> at line {at.line}
        {file ? ` of ${file.total_lines}` : ''}
      </p>
      <ErrorNote error={error} />
      {note && <p class="note">{note}</p>}
      {file && (
        <pre class="snippet">
          <code>
            {file.content.split('\n').map((text, i) => {
              const n = file.start_line + i;
              return (
                <div key={n} class={n === at.line ? 'hit' : undefined} data-line={n}>
                  <span class="hint">{String(n).padStart(5)} </span>
                  {linkIdentifiers(text, goTo)}
                </div>
              );
            })}
          </code>
        </pre>
      )}
    </div>
  );
}

function linkIdentifiers(text: string, goTo: (name: string) => void) {
  const out: Array<string | preact.JSX.Element> = [];
  let last = 0;
  for (const m of text.matchAll(IDENTIFIER)) {
    out.push(text.slice(last, m.index));
    const name = m[0];
    out.push(
      <button type="button" class="symbol-link" title={`Go to the definition of ${name}`} onClick={() => goTo(name)}>
        {name}
      </button>,
    );
    last = m.index + name.length;
  }
  out.push(text.slice(last));
  return out;
}
