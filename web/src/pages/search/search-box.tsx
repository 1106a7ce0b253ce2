import { useState } from 'preact/hooks';
import { sb, unwrap, type SearchAnswer } from '../../api.js';
import { Field } from '../../components/field.js';
import { ErrorNote } from '../../components/notes.js';
import { Section } from '../../components/section.js';
import { useAction } from '../../hooks/use-action.js';
import { Results } from './results.js';
import { FileView, type FileLocation } from './file-view.js';

/** A query (with an optional number of results and a trace) over the picked repository. */
export function SearchBox({ repo }: { repo: string }) {
  const [q, setQ] = useState('');
  const [topK, setTopK] = useState('');
  const [trace, setTrace] = useState(false);
  const [data, setData] = useState<SearchAnswer>();
  const [opened, setOpened] = useState<FileLocation>();
  const action = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    void action.run(async () => setData(await unwrap(sb.GET('/api/search', { params: { query: { q, repo, top_k: topK || undefined, trace: trace ? 'true' : undefined } } }))));
  };
  return (
    <Section title="Search" id="search">
      <form class="row" onSubmit={submit} role="search" aria-label="Code" noValidate>
        <Field id="search-q" grow label="Query">
          <input id="search-q" type="search" value={q} onInput={(e) => setQ(e.currentTarget.value)} placeholder='a question, an identifier, "a phrase", /a regex/, sym:Name, lang:py, file:…' />
        </Field>
        <Field id="search-k" label="Results">
          <input id="search-k" type="number" min={1} max={100} size={4} value={topK} onInput={(e) => setTopK(e.currentTarget.value)} placeholder="default" />
        </Field>
        <div class="field">
          <label class="check">
            <input type="checkbox" checked={trace} onChange={(e) => setTrace(e.currentTarget.checked)} /> Write a trace
          </label>
        </div>
        <div class="field">
          <button type="submit" disabled={action.busy !== null || !repo}>
            {action.busy ? 'Searching…' : 'Search'}
          </button>
        </div>
      </form>
      <ErrorNote error={action.error} />
      {data && (
        <div data-testid="search-results">
          <p class="hint" aria-live="polite">
            {data.results.length} result{data.results.length === 1 ? '' : 's'} for “{data.query}” in {data.repo}
            {data.trace ? ` · trace DATA_DIR/${data.trace}` : ''}
          </p>
          <Results results={data.results} idPrefix="result" onOpen={(r) => setOpened({ repo: r.repo ?? data.repo, path: r.path, line: r.matches?.[0]?.line ?? r.start_line })} />
        </div>
      )}
      {opened && <FileView at={opened} onOpen={setOpened} />}
    </Section>
  );
}
