import { useState } from 'preact/hooks';
import { RepoPicker, useRepo } from '../../components/repo-picker.js';
import { activeTab, Tabs } from '../../components/tabs.js';
import type { Route } from '../../router.js';
import { Ask } from './ask.js';
import { GitRepositories } from './git-repositories.js';
import { IndexRuns } from './index-runs.js';
import { Keywords } from './keywords.js';
import { SearchBox } from './search-box.js';
import { Traces } from './traces.js';

const TABS = [
  ['search', '', 'Search'],
  ['repositories', 'repositories', 'Git repositories'],
] as const;

/** Code search: search, ask, index runs, keywords and traces of the picked repository; git repositories (#/search/repositories). */
export function SearchPage({ route }: { route: Route }) {
  const tab = activeTab(TABS, route.parts[1]);
  return (
    <>
      <Tabs page="search" label="Code search" tabs={TABS} active={tab} />
      {tab === 'repositories' ? <GitRepositories /> : <RepositorySearch />}
    </>
  );
}

function RepositorySearch() {
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
