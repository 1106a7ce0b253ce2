import { activeTab, Tabs } from '../../components/tabs.js';
import type { Route } from '../../router.js';
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
  const tab = activeTab(TABS, sub);
  return (
    <>
      <Tabs page="fax" label="Fax" tabs={TABS} active={tab} />
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
