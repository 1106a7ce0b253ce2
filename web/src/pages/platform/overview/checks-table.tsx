import type { ApiResponse } from '../../../api.js';
import { Status } from '../../../components/status.js';
import { Table, type Column } from '../../../components/table.js';

/** A check of GET /health/ready or /admin/health-status (only readiness marks optional ones). */
type Check = ApiResponse<'/health/ready', 'get'>['checks'][number] | ApiResponse<'/admin/health-status', 'get'>['checks'][number];

function checkWord(c: Check): [boolean | null, string] {
  if (c.ok) return c.warning ? [null, 'warning'] : [true, 'ok'];
  return 'optional' in c && c.optional ? [null, 'not selected'] : [false, 'failing'];
}

const COLUMNS: Column<Check>[] = [
  { header: 'Check', cell: (c) => c.name },
  {
    header: 'State',
    cell: (c) => {
      const [ok, word] = checkWord(c);
      return <Status ok={ok}>{word}</Status>;
    },
  },
  { header: 'Detail', class: 'hint', cell: (c) => c.detail ?? '' },
];

export function ChecksTable({ checks }: { checks: readonly Check[] }) {
  return <Table rows={checks} columns={COLUMNS} rowKey={(c) => c.name} />;
}
