import { useState } from 'preact/hooks';
import { ErrorNote, WhenLoaded } from '../../components/notes.js';
import { Section } from '../../components/section.js';
import { when } from '../../format.js';
import { useGet } from '../../hooks/use-api.js';

/** The newest traces of the repository; one opens as its JSON document. */
export function Traces({ repo }: { repo: string }) {
  const list = useGet(repo ? '/api/traces' : null, { query: { repo } }, 30_000);
  const [open, setOpen] = useState<string>();
  const doc = useGet(open ? '/api/traces/{name}' : null, { path: { name: open ?? '' }, query: { repo } });
  return (
    <Section title="Traces" id="traces">
      <ErrorNote error={list.error} />
      <button type="button" class="quiet" onClick={list.reload}>
        Refresh
      </button>
      {list.data &&
        (list.data.files.length === 0 ? (
          <p class="note">No trace yet: ask a question, or search with “Write a trace”.</p>
        ) : (
          <ul class="traces">
            {list.data.files.slice(0, 20).map((f) => (
              <li key={f.name}>
                <button type="button" class="link" aria-expanded={open === f.name} onClick={() => setOpen(open === f.name ? undefined : f.name)}>
                  {f.name}
                </button>{' '}
                <span class="hint">{when(f.mtime)}</span>
              </li>
            ))}
          </ul>
        ))}
      {open && (
        <WhenLoaded loaded={doc}>
          {(trace) => (
            <pre class="snippet" tabIndex={0} aria-label={`Trace ${open}`}>
              <code>{JSON.stringify(trace, null, 2)}</code>
            </pre>
          )}
        </WhenLoaded>
      )}
    </Section>
  );
}
