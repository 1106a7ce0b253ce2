import { render } from 'preact';
import { useEffect } from 'preact/hooks';
import { useFocusHeading } from './hooks.js';
import { Layout, type NavItem } from './layout.js';
import { useRoute } from './router.js';
import { OverviewPage } from './pages/overview.js';
import { FaxPage } from './pages/fax.js';
import { PluginsPage } from './pages/plugins.js';
import { KeysPage } from './pages/keys.js';
import { SearchPage } from './pages/search.js';
import { WorkbenchPage } from './pages/workbench.js';
import type { Route } from './router.js';
import './styles.css';

interface Page extends NavItem {
  render: (route: Route) => preact.ComponentChildren;
}

const PAGES: Page[] = [
  { path: 'overview', label: 'Overview', render: () => <OverviewPage /> },
  { path: 'fax', label: 'Fax', render: (r) => <FaxPage route={r} /> },
  { path: 'plugins', label: 'Plugins', render: (r) => <PluginsPage route={r} /> },
  { path: 'keys', label: 'Keys & settings', render: () => <KeysPage /> },
  { path: 'search', label: 'Code search', render: () => <SearchPage /> },
  { path: 'workbench', label: 'Workbench', render: () => <WorkbenchPage /> },
];

function App() {
  const route = useRoute();
  const page = PAGES.find((p) => p.path === route.parts[0]) ?? PAGES[0]!;
  const headingRef = useFocusHeading<HTMLHeadingElement>(page.path);
  useEffect(() => {
    document.title = `${page.label} · Switchboard console`;
  }, [page.label]);
  return (
    <Layout nav={PAGES} active={page.path} title={page.label} headingRef={headingRef}>
      {page.render(route)}
    </Layout>
  );
}

render(<App />, document.getElementById('app')!);
