import { useState } from 'preact/hooks';
import { sb, unwrap, type ApiResponse } from '../../api.js';
import { Field } from '../../components/field.js';
import { ActionOutcome, WhenLoaded } from '../../components/notes.js';
import { Section } from '../../components/section.js';
import { Table, type Column } from '../../components/table.js';
import { when } from '../../format.js';
import { useAction } from '../../hooks/use-action.js';
import { useGet } from '../../hooks/use-api.js';
import { DeliveryLog } from './delivery-log.js';

type Subscription = ApiResponse<'/webhooks/subscriptions', 'get'>['subscriptions'][number];
type NewSubscription = ApiResponse<'/webhooks/subscriptions', 'post', 201>;

/** Every status event, in the order a fax goes through them. */
const EVENTS: Subscription['events'] = ['fax.queued', 'fax.sending', 'fax.retrying', 'fax.delivered', 'fax.failed', 'fax.canceled', 'inbound.received'];

const COLUMNS: Column<Subscription>[] = [
  { header: 'URL', class: 'mono', rowHeader: true, cell: (s) => s.url },
  { header: 'Events', class: 'mono', cell: (s) => s.events.join(', ') },
  { header: 'Created', cell: (s) => when(s.created_at) },
];

/** The signing secret, shown once after subscribing. */
function SecretOnce({ created, onDone }: { created: NewSubscription; onDone: () => void }) {
  return (
    <div class="preview" role="region" aria-label="New subscription" data-testid="secret-once">
      <p>
        <strong>The signing secret of {created.url}</strong> is shown only now: the receiver checks X-Switchboard-Signature with it.
      </p>
      <Field id="new-secret" label="Signing secret">
        <input id="new-secret" class="mono" readOnly value={created.secret} onFocus={(e) => e.currentTarget.select()} />
      </Field>
      <button type="button" class="quiet" onClick={onDone}>
        Done, hide the secret
      </button>
    </div>
  );
}

/** Webhooks (#/fax/webhooks): this key's status-event subscriptions, each with its delivery log. */
export function Subscriptions() {
  const list = useGet('/webhooks/subscriptions', {});
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<Subscription['events']>(['fax.delivered', 'fax.failed']);
  const [created, setCreated] = useState<NewSubscription>();
  const [open, setOpen] = useState<string>();
  const action = useAction();
  const busy = action.busy !== null;

  const subscribe = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      setCreated(await unwrap(sb.POST('/webhooks/subscriptions', { body: { url: url.trim(), events } })));
      setUrl('');
      list.reload();
    });
  };
  const remove = (s: Subscription) =>
    action.run(async () => {
      await unwrap(sb.DELETE('/webhooks/subscriptions/{id}', { params: { path: { id: s.id } } }));
      if (open === s.id) setOpen(undefined);
      list.reload();
      return `Unsubscribed ${s.url}.`;
    });

  const shown = list.data?.subscriptions.find((s) => s.id === open);
  return (
    <Section title="Status webhooks" id="subscriptions">
      <p class="hint">Signed events about this key's faxes, sent to your application (docs/fax/webhooks.md).</p>
      <WhenLoaded loaded={list}>
        {(data) => (
          <Table
            testId="subscriptions"
            rows={data.subscriptions}
            columns={COLUMNS}
            rowKey={(s) => s.id}
            empty="No subscription yet."
            actions={{
              label: (s) => `Actions for ${s.url}`,
              cell: (s) => (
                <>
                  <button type="button" class="quiet" aria-expanded={open === s.id} onClick={() => setOpen(open === s.id ? undefined : s.id)}>
                    Deliveries
                  </button>
                  <button type="button" class="quiet" disabled={busy} onClick={() => void remove(s)}>
                    Delete
                  </button>
                </>
              ),
            }}
          />
        )}
      </WhenLoaded>
      {shown && (
        <>
          <h3>Deliveries to {shown.url}</h3>
          <DeliveryLog subscriptionId={shown.id} />
        </>
      )}
      <form onSubmit={subscribe}>
        <Field id="subscription-url" label="Receiver URL (https)">
          <input id="subscription-url" type="url" autoComplete="off" spellcheck={false} value={url} onInput={(e) => setUrl(e.currentTarget.value)} placeholder="https://app.example.com/fax-events" />
        </Field>
        <fieldset class="scopes">
          <legend>Events</legend>
          {EVENTS.map((name) => (
            <label key={name} class="check">
              <input type="checkbox" checked={events.includes(name)} onChange={(e) => setEvents(e.currentTarget.checked ? [...events, name] : events.filter((x) => x !== name))} /> <span class="mono">{name}</span>
            </label>
          ))}
        </fieldset>
        <button type="submit" disabled={busy || !url.trim() || events.length === 0}>
          Subscribe
        </button>
      </form>
      {created && <SecretOnce created={created} onDone={() => setCreated(undefined)} />}
      <ActionOutcome action={action} />
    </Section>
  );
}
