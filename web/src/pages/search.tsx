import { useEffect, useRef, useState } from 'preact/hooks';
import { api, errorText, request, withQuery } from '../api.js';
import { ErrorNote, Section, Status, when } from '../components.js';
import { useApi } from '../hooks.js';
import { RepoPicker, useRepo } from '../repos.js';

interface SearchResult {
  score: number;
  path: string;
  start_line: number;
  end_line: number;
  snippet: string;
  stale?: boolean;
  indexed_at?: string;
}
interface SearchResponse {
  query: string;
  repo: string;
  top_k: number;
  results: SearchResult[];
  trace?: string;
}
interface IndexStatus {
  status: string[];
  metadata: { repo: string; started_at: string | null; finished_at: string | null };
  run: { id: string; state: 'running' | 'finished' | 'failed' | 'interrupted'; files_seen: number; chunks: number; error: string | null } | null;
}
interface Citation {
  path: string;
  start_line: number;
  end_line: number;
  stale?: boolean;
}
interface Answer {
  answer: string;
  citations: Citation[];
  mode: string;
  model: string | null;
  run_id: string;
  trace: string | null;
  notes?: string[];
}
interface Keywords {
  repo: string;
  generated_at: string;
  files: number;
  keywords: { term: string; score: number; df: number; tf: number }[];
}
interface TraceList {
  repo: string;
  files: { path: string; name: string; mtime: string }[];
}

const lines = (r: { start_line: number; end_line: number }) => (r.start_line === r.end_line ? `line ${r.start_line}` : `lines ${r.start_line}–${r.end_line}`);
const overlaps = (a: Citation, b: SearchResult) => a.path === b.path && a.start_line <= b.end_line && b.start_line <= a.end_line;

function Results({ results, idPrefix, highlight }: { results: SearchResult[]; idPrefix: string; highlight?: number | undefined }) {
  if (!results.length) return <p class="note">No result.</p>;
  return (
    <ol class="results">
      {results.map((r, i) => (
        <li key={`${r.path}:${r.start_line}`} id={`${idPrefix}-${i + 1}`} tabIndex={-1} class={highlight === i + 1 ? 'hit' : undefined}>
          <div class="result-head">
            <span class="mono">{r.path}</span> <span class="hint">{lines(r)}</span> <span class="hint">score {r.score.toFixed(3)}</span>{' '}
            {r.stale && (
              <span title="The file changed or was removed since it was indexed; reindex to refresh">
                <Status ok={false}>stale</Status>
              </span>
            )}
          </div>
          <pre class="snippet">
            <code>{r.snippet}</code>
          </pre>
        </li>
      ))}
    </ol>
  );
}

function IndexRuns({ repo, onFinished }: { repo: string; onFinished: (at: string | null) => void }) {
  const [running, setRunning] = useState(false);
  const status = useApi<IndexStatus>(repo ? withQuery('/api/index/status', { repo }) : null, running ? 1000 : 15_000);
  const [enrich, setEnrich] = useState(false);
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const state = status.data?.run?.state;
  useEffect(() => setRunning(state === 'running'), [state]);
  const finishedAt = status.data?.metadata.finished_at;
  useEffect(() => onFinished(finishedAt ?? null), [finishedAt]);
  const start = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await api('/api/index/start', { method: 'POST', body: { repo, enrich } });
      setRunning(true);
      status.reload();
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Section title="Index runs" id="index">
      <div class="row">
        <label class="check">
          <input type="checkbox" checked={enrich} onChange={(e) => setEnrich(e.currentTarget.checked)} /> Enrich chunks (LLM summaries)
        </label>
        <button type="button" onClick={start} disabled={busy || running || !repo}>
          {running ? 'Indexing…' : 'Start indexing'}
        </button>
      </div>
      <ErrorNote error={error ?? status.error} />
      {status.data && (
        <>
          <p data-testid="index-state">
            Latest run: <Status ok={state === 'finished' ? true : state === 'running' || !state ? null : false}>{state ?? 'never indexed'}</Status>{' '}
            {status.data.metadata.started_at && <span class="hint">started {when(status.data.metadata.started_at)}</span>}{' '}
            {status.data.metadata.finished_at && <span class="hint">finished {when(status.data.metadata.finished_at)}</span>}
          </p>
          <ol class="status-lines mono" aria-live="polite" aria-label="Index status lines">
            {status.data.status.map((l, i) => (
              <li key={i}>{l}</li>
            ))}
          </ol>
        </>
      )}
    </Section>
  );
}

function SearchBox({ repo }: { repo: string }) {
  const [q, setQ] = useState('');
  const [topK, setTopK] = useState('');
  const [trace, setTrace] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [data, setData] = useState<SearchResponse>();
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      setData(await api<SearchResponse>('/api/search', { query: { q, repo, top_k: topK, trace: trace ? 'true' : undefined } }));
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Section title="Search" id="search">
      <form class="row" onSubmit={submit} role="search" aria-label="Code" noValidate>
        <div class="field grow">
          <label for="search-q">Query</label>
          <input id="search-q" type="search" value={q} onInput={(e) => setQ(e.currentTarget.value)} placeholder="a question or an identifier" />
        </div>
        <div class="field">
          <label for="search-k">Results</label>
          <input id="search-k" type="number" min={1} max={100} size={4} value={topK} onInput={(e) => setTopK(e.currentTarget.value)} placeholder="default" />
        </div>
        <div class="field">
          <label class="check">
            <input type="checkbox" checked={trace} onChange={(e) => setTrace(e.currentTarget.checked)} /> Write a trace
          </label>
        </div>
        <div class="field">
          <button type="submit" disabled={busy || !repo}>
            {busy ? 'Searching…' : 'Search'}
          </button>
        </div>
      </form>
      <ErrorNote error={error} />
      {data && (
        <div data-testid="search-results">
          <p class="hint" aria-live="polite">
            {data.results.length} result{data.results.length === 1 ? '' : 's'} for “{data.query}” in {data.repo}
            {data.trace ? ` · trace ${data.trace}` : ''}
          </p>
          <Results results={data.results} idPrefix="result" />
        </div>
      )}
    </Section>
  );
}

/** Reads a text/event-stream body, calling `on` per event. */
async function readEvents(res: Response, on: (event: string, data: unknown) => void): Promise<void> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += value;
    let at: number;
    while ((at = buf.indexOf('\n\n')) >= 0) {
      const block = buf.slice(0, at);
      buf = buf.slice(at + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? 'message';
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (data !== undefined) on(event, JSON.parse(data));
    }
  }
}

function Ask({ repo }: { repo: string }) {
  const [question, setQuestion] = useState('');
  const [text, setText] = useState('');
  const [answer, setAnswer] = useState<Answer>();
  const [sources, setSources] = useState<SearchResult[]>([]);
  const [phase, setPhase] = useState<'idle' | 'streaming' | 'done'>('idle');
  const [error, setError] = useState<string>();
  const [focus, setFocus] = useState<number>();
  const ctl = useRef<AbortController | undefined>(undefined);
  useEffect(() => () => ctl.current?.abort(), []);
  const ask = async (e: Event) => {
    e.preventDefault();
    ctl.current?.abort();
    const controller = new AbortController();
    ctl.current = controller;
    setText('');
    setAnswer(undefined);
    setSources([]);
    setError(undefined);
    setPhase('streaming');
    try {
      const res = await request('/api/rag', { method: 'POST', body: { question, repo, stream: true }, signal: controller.signal });
      let final: Answer | undefined;
      await readEvents(res, (event, data) => {
        if (event === 'token') setText((t) => t + (data as { text: string }).text);
        else if (event === 'reset') setText('');
        else if (event === 'final') final = data as Answer;
        else if (event === 'error') setError(errorText(new Error((data as { detail: string }).detail)));
      });
      if (final) {
        setAnswer(final);
        setText(final.answer);
        // The snippets the citations point at: the same retrieval, as search results.
        const found = await api<SearchResponse>('/api/search', { query: { q: question, repo, top_k: 20 } }).catch(() => undefined);
        setSources(found?.results ?? []);
      }
    } catch (err) {
      if (!controller.signal.aborted) setError(errorText(err));
    } finally {
      if (!controller.signal.aborted) setPhase('done');
    }
  };
  const sourceOf = (c: Citation) => sources.findIndex((s) => overlaps(c, s)) + 1;
  return (
    <Section title="Ask a question" id="ask">
      <form onSubmit={ask}>
        <div class="field">
          <label for="ask-q">Question</label>
          <textarea id="ask-q" rows={2} value={question} onInput={(e) => setQuestion(e.currentTarget.value)} />
        </div>
        <div class="row">
          <button type="submit" disabled={phase === 'streaming' || !question.trim() || !repo}>
            {phase === 'streaming' ? 'Answering…' : 'Ask'}
          </button>
          {phase === 'streaming' && (
            <button type="button" class="quiet" onClick={() => (ctl.current?.abort(), setPhase('done'))}>
              Stop
            </button>
          )}
        </div>
      </form>
      <ErrorNote error={error} />
      {(text || phase === 'streaming') && (
        <div class="answer" aria-live="polite" aria-busy={phase === 'streaming'} data-testid="answer">
          {text || <span class="note">Waiting for the first words…</span>}
        </div>
      )}
      {answer && (
        <>
          <p class="hint">
            {answer.mode} answer{answer.model ? ` by ${answer.model}` : ''} · run {answer.run_id}
            {answer.trace ? ` · trace ${answer.trace}` : ''}
          </p>
          {answer.notes?.map((n) => (
            <p class="note" key={n}>
              {n}
            </p>
          ))}
          <h3>Citations</h3>
          <ol class="citations" data-testid="citations">
            {answer.citations.map((c, i) => {
              const n = sourceOf(c);
              const label = `${c.path} ${lines(c)}`;
              return (
                <li key={i}>
                  {n > 0 ? (
                    <a
                      href={`#source-${n}`}
                      onClick={(e) => {
                        e.preventDefault();
                        setFocus(n);
                        const el = document.getElementById(`source-${n}`);
                        el?.scrollIntoView({ block: 'center' });
                        el?.focus();
                      }}
                    >
                      {label}
                    </a>
                  ) : (
                    <span class="mono">{label}</span>
                  )}{' '}
                  {c.stale && <Status ok={false}>stale</Status>}
                </li>
              );
            })}
          </ol>
          {sources.length > 0 && (
            <>
              <h3>Retrieved snippets</h3>
              <Results results={sources} idPrefix="source" highlight={focus} />
            </>
          )}
        </>
      )}
    </Section>
  );
}

function KeywordsCard({ repo, indexedAt }: { repo: string; indexedAt: string | null | undefined }) {
  const list = useApi<Keywords>(repo ? withQuery('/api/keywords', { repo }) : null);
  const seen = useRef(indexedAt);
  useEffect(() => {
    // A finished index run changes what the keywords are built from: read them again.
    if (indexedAt && indexedAt !== seen.current) list.reload();
    seen.current = indexedAt;
  }, [indexedAt]);
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const rebuild = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await api('/api/keywords/rebuild', { method: 'POST', query: { repo } });
      list.reload();
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Section title="Keywords" id="keywords">
      <ErrorNote error={error ?? list.error} />
      {list.data && (
        <>
          <p class="hint">
            {list.data.keywords.length} keywords from {list.data.files} files, generated {when(list.data.generated_at)}
          </p>
          {list.data.keywords.length === 0 && <p class="note">No keywords yet: index the repository first.</p>}
          <ul class="chips" aria-label="Discriminative keywords">
            {list.data.keywords.slice(0, 60).map((k) => (
              <li key={k.term} title={`score ${k.score.toFixed(2)}, in ${k.df} files, ${k.tf} times`}>
                {k.term}
              </li>
            ))}
          </ul>
        </>
      )}
      <button type="button" class="quiet" onClick={rebuild} disabled={busy || !repo}>
        {busy ? 'Rebuilding…' : 'Rebuild keywords'}
      </button>
    </Section>
  );
}

function Traces({ repo }: { repo: string }) {
  const list = useApi<TraceList>(repo ? withQuery('/api/traces', { repo }) : null, 30_000);
  const [open, setOpen] = useState<string>();
  const doc = useApi<unknown>(open ? withQuery(`/api/traces/${encodeURIComponent(open)}`, { repo }) : null);
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
        <>
          <ErrorNote error={doc.error} />
          {doc.data !== undefined && (
            <pre class="snippet" tabIndex={0} aria-label={`Trace ${open}`}>
              <code>{JSON.stringify(doc.data, null, 2)}</code>
            </pre>
          )}
        </>
      )}
    </Section>
  );
}

export function SearchPage() {
  const [repo, setRepo, names, free] = useRepo('switchboard.search.repo');
  const [indexedAt, setIndexedAt] = useState<string | null>();
  return (
    <>
      <div class="card row">
        <RepoPicker id="search-repo" label="Repository" value={repo} names={names} free={free} onChange={setRepo} />
      </div>
      {repo && (
        <>
          <SearchBox repo={repo} />
          <Ask repo={repo} />
          <IndexRuns key={`i-${repo}`} repo={repo} onFinished={setIndexedAt} />
          <div class="grid">
            <KeywordsCard key={`k-${repo}`} repo={repo} indexedAt={indexedAt} />
            <Traces repo={repo} />
          </div>
        </>
      )}
    </>
  );
}
