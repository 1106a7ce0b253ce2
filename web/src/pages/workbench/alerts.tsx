import type { ApiResponse } from '../../api.js';
import { FiringAlerts } from '../../components/firing-alerts.js';
import { WhenLoaded } from '../../components/notes.js';
import { Section } from '../../components/section.js';
import { Status } from '../../components/status.js';
import { Table, type Column } from '../../components/table.js';
import { when } from '../../format.js';
import type { Loaded } from '../../hooks/use-api.js';

export type Deliveries = ApiResponse<'/admin/alerts/deliveries', 'get'>;
type Delivery = Deliveries['deliveries'][number];

const COLUMNS: Column<Delivery>[] = [
  { header: 'When', cell: (d) => when(d.created_at) },
  { header: 'Event', class: 'mono', cell: (d) => `${d.event_id.split('/')[0]} (${d.status})` },
  { header: 'Target', class: 'mono', cell: (d) => d.target },
  {
    header: 'Outcome',
    cell: (d) => (
      <>
        <Status ok={d.state === 'delivered' ? true : d.state === 'failed' ? false : null}>{d.state}</Status>{' '}
        <span class="hint">
          {d.attempts} attempt{d.attempts === 1 ? '' : 's'}
          {d.last_status ? ` · HTTP ${d.last_status}` : ''}
          {d.last_error ? ` · ${d.last_error}` : ''}
        </span>
      </>
    ),
  },
];

/** The alerts firing now and the recent deliveries to the alert targets. */
export function Alerts({ deliveries }: { deliveries: Loaded<Deliveries> }) {
  return (
    <Section title="Alerts" id="alerts">
      <h3>Firing now</h3>
      <FiringAlerts refreshMs={30_000} listClass="plain" />
      <h3>Recent deliveries</h3>
      <WhenLoaded loaded={deliveries}>{(data) => <Table testId="deliveries" rows={data.deliveries} columns={COLUMNS} rowKey={(d) => d.id} empty="No delivery yet." />}</WhenLoaded>
    </Section>
  );
}
