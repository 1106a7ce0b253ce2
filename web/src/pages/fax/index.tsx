import { href, type Route } from '../../router.js';
import { InboundList } from './inbound-list.js';
import { JobDetailView } from './job-detail.js';
import { JobList } from './job-list.js';
import { Mailboxes } from './mailboxes.js';
import { SendFax } from './send-fax.js';
import { Subscriptions } from './subscriptions.js';

const TABS = [
  ['outbound', '', 'Send and jobs'],
  ['inbound', 'inbound', 'Inbound'],
  ['mailboxes', 'mailboxes', 'Mailboxes'],
  ['webhooks', 'webhooks', 'Webhooks'],
] as const;

/** Fax: send and the job list, a job's detail (#/fax/jobs/<id>), inbound faxes, mailboxes and status webhooks. */
export function FaxPage({ route }: { route: Route }) {
  const [, sub, id] = route.parts;
  const tab = TABS.find(([, path]) => path && path === sub)?.[0] ?? 'outbound';
  return (
    <>
      <nav aria-label="Fax" class="tabs">
        {TABS.map(([name, path, label]) => (
          <a key={name} href={href(path ? `fax/${path}` : 'fax')} aria-current={tab === name ? 'page' : undefined}>
            {label}
          </a>
        ))}
      </nav>
      {sub === 'jobs' && id ? (
        <JobDetailView id={id} />
      ) : tab === 'inbound' ? (
        <InboundList />
      ) : tab === 'mailboxes' ? (
        <Mailboxes />
      ) : tab === 'webhooks' ? (
        <Subscriptions />
      ) : (
        <>
          <SendFax />
          <JobList route={route} />
        </>
      )}
    </>
  );
}
