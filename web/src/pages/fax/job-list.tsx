import type { ApiResponse } from '../../api.js';
import { WhenLoaded } from '../../components/notes.js';
import { Pager } from '../../components/pager.js';
import { Section } from '../../components/section.js';
import { Table, type Column } from '../../components/table.js';
import { when } from '../../format.js';
import { useGet, type GetParams } from '../../hooks/use-api.js';
import { useCursorPages } from '../../hooks/use-cursor-pages.js';
import { href, navigate, type Route } from '../../router.js';
import { FaxStatus } from './fax-status.js';
import { JobFilters } from './job-filters.js';

type JobStatus = NonNullable<NonNullable<GetParams<'/admin/fax-jobs'>['query']>['status']>;
type JobSummary = ApiResponse<'/admin/fax-jobs', 'get'>['jobs'][number];

const STATUSES: readonly JobStatus[] = ['queued', 'in_progress', 'SUCCESS', 'FAILED', 'disabled'];
const isStatus = (s: string): s is JobStatus => (STATUSES as readonly string[]).includes(s);

const COLUMNS: Column<JobSummary>[] = [
  {
    header: 'Job',
    cell: (j) => (
      <a class="mono" href={href(`fax/jobs/${j.id}`)}>
        {j.id.slice(0, 8)}
      </a>
    ),
  },
  { header: 'To', class: 'mono', cell: (j) => j.to },
  {
    header: 'Status',
    cell: (j) => (
      <>
        <FaxStatus status={j.status} />
        {j.error && <div class="hint">{j.error}</div>}
      </>
    ),
  },
  { header: 'Pages', cell: (j) => j.pages ?? '—' },
  { header: 'Backend', cell: (j) => j.backend },
  { header: 'Created', cell: (j) => when(j.created_at) },
];

/** Jobs: filters (kept in the page's address), masked numbers, paging by cursor. */
export function JobList({ route }: { route: Route }) {
  const status = route.query.get('status') ?? '';
  const backend = route.query.get('backend') ?? '';
  const since = route.query.get('since') ?? '';
  const pages = useCursorPages();
  const query = { limit: 20, status: isStatus(status) ? status : undefined, backend: backend || undefined, since: since ? new Date(since).toISOString() : undefined, cursor: pages.cursor };
  const jobs = useGet('/admin/fax-jobs', { query }, 10_000);
  return (
    <Section title="Jobs" id="jobs">
      <JobFilters
        initial={{ status, backend, since }}
        statuses={STATUSES}
        onApply={(f) => {
          pages.reset();
          navigate('fax', { ...f });
        }}
      />
      <WhenLoaded loaded={jobs}>{(data) => <Table testId="jobs" rows={data.jobs} columns={COLUMNS} rowKey={(j) => j.id} empty={`No jobs${status || backend || since ? ' match these filters' : ' yet'}.`} />}</WhenLoaded>
      <Pager pages={pages} nextCursor={jobs.data?.next_cursor} numbered />
    </Section>
  );
}
