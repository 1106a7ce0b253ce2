import { sb, unwrap, type ApiResponse } from '../../api.js';
import { ActionOutcome, WhenLoaded } from '../../components/notes.js';
import { Table, type Column } from '../../components/table.js';
import { when } from '../../format.js';
import { useAction } from '../../hooks/use-action.js';
import { useGet } from '../../hooks/use-api.js';

type Delivery = ApiResponse<'/webhooks/deliveries', 'get'>['deliveries'][number];

const COLUMNS: Column<Delivery>[] = [
  { header: 'Event', class: 'mono', cell: (d) => d.event_type },
  { header: 'About', class: 'mono', cell: (d) => d.subject_id.slice(0, 8) },
  { header: 'State', cell: (d) => d.state },
  { header: 'Attempts', cell: (d) => d.attempts },
  { header: 'Last answer', cell: (d) => (d.last_status !== null ? `HTTP ${d.last_status}` : (d.last_error ?? '—')) },
  { header: 'Finished', cell: (d) => when(d.finished_at) },
];

/** One subscription's deliveries, newest event first, read again every 5 seconds; a finished one can be sent again. */
export function DeliveryLog({ subscriptionId }: { subscriptionId: string }) {
  const log = useGet('/webhooks/deliveries', { query: { subscription_id: subscriptionId, limit: 20 } }, 5000);
  const action = useAction();
  const redeliver = (d: Delivery) =>
    action.run(async () => {
      await unwrap(sb.POST('/webhooks/deliveries/{id}/redeliver', { params: { path: { id: d.id } } }));
      log.reload();
      return `${d.event_type} queued again (same event id).`;
    });
  return (
    <div data-testid="delivery-log">
      <WhenLoaded loaded={log} loading>
        {(data) => (
          <Table
            testId="deliveries"
            caption="Deliveries"
            rows={data.deliveries}
            columns={COLUMNS}
            rowKey={(d) => d.id}
            empty="No delivery yet."
            actions={{
              label: (d) => `Actions for the ${d.event_type} delivery`,
              cell: (d) => (
                <button type="button" class="quiet" disabled={d.state === 'pending' || action.busy !== null} onClick={() => void redeliver(d)}>
                  Redeliver
                </button>
              ),
            }}
          />
        )}
      </WhenLoaded>
      <ActionOutcome action={action} />
    </div>
  );
}
