import { useState } from 'preact/hooks';
import { RepoPicker, useRepo } from '../../components/repo-picker.js';
import { Ask } from './ask.js';
import { IndexRuns } from './index-runs.js';
import { Keywords } from './keywords.js';
import { SearchBox } from './search-box.js';
import { Traces } from './traces.js';

/** Code search over the picked repository: search, ask, index runs, keywords and traces. */
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
            <Keywords key={`k-${repo}`} repo={repo} indexedAt={indexedAt} />
            <Traces repo={repo} />
          </div>
        </>
      )}
    </>
  );
}
