import { saveBlob, sb, type ApiResponse } from '../../api.js';
import { WhenLoaded } from '../../components/notes.js';
import { Pager } from '../../components/pager.js';
import { Section } from '../../components/section.js';
import { Status } from '../../components/status.js';
import { Table, type Column } from '../../components/table.js';
import { when } from '../../format.js';
import { useAction } from '../../hooks/use-action.js';
import { useGet } from '../../hooks/use-api.js';
import { useCursorPages } from '../../hooks/use-cursor-pages.js';

type Inbound = ApiResponse<'/inbound', 'get'>['faxes'][number];

/** Inbound faxes, newest first, each with its PDF (fetched with the key in a header). */
export function InboundList() {
  const pages = useCursorPages();
  const list = useGet('/inbound', { query: { limit: 20, cursor: pages.cursor } }, 15_000);
  const download = useAction();
  const columns: Column<Inbound>[] = [
    { header: 'Received', cell: (f) => when(f.received_at) },
    { header: 'From', class: 'mono', cell: (f) => f.from ?? '—' },
    { header: 'To', class: 'mono', cell: (f) => f.to ?? '—' },
    { header: 'Mailbox', class: 'mono', cell: (f) => f.mailbox ?? '—' },
    { header: 'Pages', cell: (f) => f.pages ?? '—' },
    { header: 'Status', cell: (f) => f.status },
    {
      header: 'Document',
      cell: (f) => (
        <button
          type="button"
          class="quiet"
          aria-label={`Download PDF of the fax received ${when(f.received_at)}`}
          onClick={() => download.run(async () => saveBlob(await sb.download('/inbound/{id}/pdf', { params: { id: f.id } }), `inbound-${f.id}.pdf`))}
        >
          Download PDF
        </button>
      ),
    },
  ];
  // Off is the default, not a fault: say which setting turns it on.
  if (list.errorCode === 'inbound_disabled')
    return (
      <Section title="Inbound faxes" id="inbound">
        <p class="note" data-testid="inbound-off">
          <Status ok={null}>off</Status> Receiving is off by default. Set <code>INBOUND_ENABLED=true</code> (Keys &amp; settings, or the environment) to receive faxes here.
        </p>
      </Section>
    );
  return (
    <Section title="Inbound faxes" id="inbound">
      <WhenLoaded loaded={list} error={download.error}>
        {(data) => <Table testId="inbound" rows={data.faxes} columns={columns} rowKey={(f) => f.id} empty="No inbound fax yet." />}
      </WhenLoaded>
      <Pager pages={pages} nextCursor={list.data?.next_cursor} />
    </Section>
  );
}
