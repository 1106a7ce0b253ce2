import { href } from '../router.js';

/** A page's tabs: [name, sub-path ('' for the page itself), label]. */
export type TabList = readonly (readonly [string, string, string])[];

/** The tab a route's second segment names, or the first tab. */
export function activeTab(tabs: TabList, sub: string | undefined): string {
  return tabs.find(([, path]) => path && path === sub)?.[0] ?? tabs[0]![0];
}

/** Links to a page's tabs (#/<page>/<sub-path>), the current one marked. */
export function Tabs({ page, label, tabs, active }: { page: string; label: string; tabs: TabList; active: string }) {
  return (
    <nav aria-label={label} class="tabs">
      {tabs.map(([name, path, text]) => (
        <a key={name} href={href(path ? `${page}/${path}` : page)} aria-current={active === name ? 'page' : undefined}>
          {text}
        </a>
      ))}
    </nav>
  );
}
