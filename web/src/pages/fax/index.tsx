import { href, type Route } from '../../router.js';
import { InboundList } from './inbound-list.js';
import { JobDetailView } from './job-detail.js';
import { JobList } from './job-list.js';
import { SendFax } from './send-fax.js';

/** Fax: send and the job list, a job's detail (#/fax/jobs/<id>), inbound faxes (#/fax/inbound). */
export function FaxPage({ route }: { route: Route }) {
  const [, sub, id] = route.parts;
  const tab = sub === 'inbound' ? 'inbound' : 'outbound';
  return (
    <>
      <nav aria-label="Fax" class="tabs">
        <a href={href('fax')} aria-current={tab === 'outbound' ? 'page' : undefined}>
          Send and jobs
        </a>
        <a href={href('fax/inbound')} aria-current={tab === 'inbound' ? 'page' : undefined}>
          Inbound
        </a>
      </nav>
      {sub === 'jobs' && id ? (
        <JobDetailView id={id} />
      ) : tab === 'inbound' ? (
        <InboundList />
      ) : (
        <>
          <SendFax />
          <JobList route={route} />
        </>
      )}
    </>
  );
}
