import { render } from 'preact';
import { useEffect } from 'preact/hooks';
import { Layout, type NavItem } from './components/layout.js';
import { useFocusHeading } from './hooks/use-focus-heading.js';
import { FaxPage } from './pages/fax/index.js';
import { KeysPage } from './pages/platform/keys/index.js';
import { OverviewPage } from './pages/platform/overview/index.js';
import { PluginsPage } from './pages/platform/plugins/index.js';
import { SearchPage } from './pages/search/index.js';
import { WorkbenchPage } from './pages/workbench/index.js';
import { useRoute, type Route } from './router.js';
import './styles.css';

interface Page extends NavItem {
  render: (route: Route) => preact.ComponentChildren;
}

const PAGES: Page[] = [
  { path: 'overview', label: 'Overview', render: () => <OverviewPage /> },
  { path: 'fax', label: 'Fax', render: (r) => <FaxPage route={r} /> },
  { path: 'plugins', label: 'Plugins', render: (r) => <PluginsPage route={r} /> },
  { path: 'keys', label: 'Keys & settings', render: () => <KeysPage /> },
  { path: 'search', label: 'Code search', render: (r) => <SearchPage route={r} /> },
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
