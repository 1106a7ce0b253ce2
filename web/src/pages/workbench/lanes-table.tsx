import type { RunRecord } from '../../api.js';
import { Table, type Column } from '../../components/table.js';

type Lane = RunRecord['lanes'][number];

const COLUMNS: Column<Lane>[] = [
  { header: 'Lane', class: 'mono', cell: (l) => l.lane },
  { header: 'Census', cell: (l) => l.status },
  { header: 'Started', cell: (l) => l.started },
  { header: 'Succeeded', cell: (l) => l.succeeded },
  { header: 'Failed', cell: (l) => l.failed },
  { header: 'Uncertain', cell: (l) => l.uncertain },
  { header: 'In flight', cell: (l) => l.in_flight },
];

/** The request census of a run, per lane. */
export function LanesTable({ lanes }: { lanes: readonly Lane[] }) {
  return <Table rows={lanes} columns={COLUMNS} rowKey={(l) => l.lane} caption="Request census per lane" />;
}
