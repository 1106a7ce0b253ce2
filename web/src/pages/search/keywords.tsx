import { useEffect, useRef } from 'preact/hooks';
import { sb, unwrap } from '../../api.js';
import { WhenLoaded } from '../../components/notes.js';
import { Section } from '../../components/section.js';
import { when } from '../../format.js';
import { useAction } from '../../hooks/use-action.js';
import { useGet } from '../../hooks/use-api.js';

/** The repository's discriminative keywords, read again after an index run, and a rebuild. */
export function Keywords({ repo, indexedAt }: { repo: string; indexedAt: string | null | undefined }) {
  const list = useGet(repo ? '/api/keywords' : null, { query: { repo } });
  const seen = useRef(indexedAt);
  useEffect(() => {
    // A finished index run changes what the keywords are built from: read them again.
    if (indexedAt && indexedAt !== seen.current) list.reload();
    seen.current = indexedAt;
  }, [indexedAt]);
  const action = useAction();
  const rebuild = () =>
    action.run(async () => {
      await unwrap(sb.POST('/api/keywords/rebuild', { params: { query: { repo } } }));
      list.reload();
    });
  return (
    <Section title="Keywords" id="keywords">
      <WhenLoaded loaded={list} error={action.error}>
        {(data) => (
          <>
            <p class="hint">
              {data.keywords.length} keywords from {data.files} files, generated {when(data.generated_at)}
            </p>
            {data.keywords.length === 0 && <p class="note">No keywords yet: index the repository first.</p>}
            <ul class="chips" aria-label="Discriminative keywords">
              {data.keywords.slice(0, 60).map((k) => (
                <li key={k.term} title={`score ${k.score.toFixed(2)}, in ${k.df} files, ${k.tf} times`}>
                  {k.term}
                </li>
              ))}
            </ul>
          </>
        )}
      </WhenLoaded>
      <button type="button" class="quiet" onClick={rebuild} disabled={action.busy !== null || !repo}>
        {action.busy ? 'Rebuilding…' : 'Rebuild keywords'}
      </button>
    </Section>
  );
}
