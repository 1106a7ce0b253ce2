import { useState } from 'preact/hooks';
import { sb, unwrap, type ApiResponse } from '../../api.js';
import { Field } from '../../components/field.js';
import { ActionOutcome, WhenLoaded } from '../../components/notes.js';
import { Section } from '../../components/section.js';
import { Table, type Column } from '../../components/table.js';
import { useAction } from '../../hooks/use-action.js';
import { useGet } from '../../hooks/use-api.js';

type Mailbox = ApiResponse<'/admin/mailboxes', 'get'>['mailboxes'][number];
type Rule = Mailbox['numbers'][number];

const ruleText = (r: Rule) => (r.match === 'prefix' ? `${r.number}…` : r.number);

const COLUMNS: Column<Mailbox>[] = [
  { header: 'Mailbox', class: 'mono', rowHeader: true, cell: (m) => m.name },
  { header: 'Called numbers', class: 'mono', cell: (m) => (m.numbers.length ? m.numbers.map(ruleText).join(', ') : '—') },
  { header: 'Description', cell: (m) => m.description ?? '' },
];

/**
 * Mailboxes (#/fax/mailboxes): where inbound faxes go by their called number. Adding a rule to a
 * mailbox that does not exist yet creates it; a prefix rule takes every number starting with it.
 */
export function Mailboxes() {
  const boxes = useGet('/admin/mailboxes', {});
  const [name, setName] = useState('');
  const [number, setNumber] = useState('');
  const [match, setMatch] = useState<Rule['match']>('exact');
  const action = useAction();
  const busy = action.busy !== null;

  const addRule = (e: Event) => {
    e.preventDefault();
    const box = name.trim();
    const rule: Rule = { match, number: number.replace(/[\s().-]/g, '') };
    void action.run(async () => {
      const existing = boxes.data?.mailboxes.find((m) => m.name === box);
      if (existing) await unwrap(sb.PUT('/admin/mailboxes/{name}', { params: { path: { name: box } }, body: { description: existing.description, numbers: [...existing.numbers, rule] } }));
      else await unwrap(sb.POST('/admin/mailboxes', { body: { name: box, numbers: [rule] } }));
      setNumber('');
      boxes.reload();
      return `${ruleText(rule)} now goes to ${box}.`;
    });
  };
  const remove = (box: string) =>
    action.run(async () => {
      await unwrap(sb.DELETE('/admin/mailboxes/{name}', { params: { path: { name: box } } }));
      boxes.reload();
      return `Deleted ${box}; faxes routed to it keep its name.`;
    });

  return (
    <Section title="Mailboxes" id="mailboxes">
      <WhenLoaded loaded={boxes}>
        {(data) => (
          <>
            <p class="hint">
              A fax whose called number matches no rule goes to <code>{data.default_mailbox}</code> (INBOUND_DEFAULT_MAILBOX).
            </p>
            <Table
              testId="mailboxes"
              rows={data.mailboxes}
              columns={COLUMNS}
              rowKey={(m) => m.name}
              empty="No mailbox yet: every inbound fax goes to the default."
              actions={{
                label: (m) => `Actions for ${m.name}`,
                cell: (m) => (
                  <button type="button" class="quiet" disabled={busy} onClick={() => void remove(m.name)} aria-label={`Delete mailbox ${m.name}`}>
                    Delete
                  </button>
                ),
              }}
            />
          </>
        )}
      </WhenLoaded>
      <form class="row" onSubmit={addRule}>
        <Field id="mailbox-name" label="Mailbox">
          <input id="mailbox-name" autoComplete="off" spellcheck={false} value={name} onInput={(e) => setName(e.currentTarget.value)} placeholder="sales" />
        </Field>
        <Field id="mailbox-match" label="Match">
          <select id="mailbox-match" value={match} onChange={(e) => setMatch(e.currentTarget.value as Rule['match'])}>
            <option value="exact">exact number</option>
            <option value="prefix">numbers starting with</option>
          </select>
        </Field>
        <Field id="mailbox-number" grow label="Called number">
          <input id="mailbox-number" inputMode="tel" autoComplete="off" value={number} onInput={(e) => setNumber(e.currentTarget.value)} placeholder="+15550100" />
        </Field>
        <div class="field">
          <button type="submit" disabled={busy || !name.trim() || !number.trim()}>
            Add rule
          </button>
        </div>
      </form>
      <ActionOutcome action={action} />
    </Section>
  );
}
