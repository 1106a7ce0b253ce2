import { useEffect, useRef, useState } from 'preact/hooks';
import { errorText, sb, unwrap, type Answer } from '../../api.js';
import { Field } from '../../components/field.js';
import { ErrorNote } from '../../components/notes.js';
import { Section } from '../../components/section.js';
import { Citations } from './citations.js';
import { Results, type SearchResult } from './results.js';

/** A question answered as a stream (POST /api/rag), then its citations linked to the retrieved snippets. */
export function Ask({ repo }: { repo: string }) {
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
      const final = await sb.streamAnswer({ question, repo }, { onToken: (t) => setText((s) => s + t), onReset: () => setText(''), signal: controller.signal });
      setAnswer(final);
      setText(final.answer);
      // The snippets the citations point at: the same retrieval, as search results.
      const found = await unwrap(sb.GET('/api/search', { params: { query: { q: question, repo, top_k: '20' } } })).catch(() => undefined);
      setSources(found?.results ?? []);
    } catch (err) {
      if (!controller.signal.aborted) setError(errorText(err));
    } finally {
      if (!controller.signal.aborted) setPhase('done');
    }
  };
  return (
    <Section title="Ask a question" id="ask">
      <form onSubmit={ask}>
        <Field id="ask-q" label="Question">
          <textarea id="ask-q" rows={2} value={question} onInput={(e) => setQuestion(e.currentTarget.value)} />
        </Field>
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
            {answer.trace ? ` · trace DATA_DIR/${answer.trace}` : ''}
          </p>
          {answer.notes?.map((n) => (
            <p class="note" key={n}>
              {n}
            </p>
          ))}
          <h3>Citations</h3>
          <Citations citations={answer.citations} sources={sources} onFollow={setFocus} />
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
