import { sb, type ApiResponse } from '../../../api.js';
import { FiringAlerts } from '../../../components/firing-alerts.js';
import { WhenLoaded } from '../../../components/notes.js';
import { Section } from '../../../components/section.js';
import { Status } from '../../../components/status.js';
import { useApi, useGet } from '../../../hooks/use-api.js';
import { ActivityChart } from './activity-chart.js';
import { ChecksTable } from './checks-table.js';
import { PluginHealthTable } from './plugin-health-table.js';

const REFRESH_MS = 15_000;

/** Readiness answers 503 with the same body when a check fails: that is an answer to show, not an error. */
type Readiness = ApiResponse<'/health/ready', 'get'> | ApiResponse<'/health/ready', 'get', 503>;

export function OverviewPage() {
  const ready = useApi((signal) => sb.request<Readiness>('GET', '/health/ready', { acceptStatus: [503], signal }), [], REFRESH_MS);
  const health = useGet('/admin/health-status', {}, REFRESH_MS);
  const activity = useGet('/admin/fax-activity', { query: { hours: 24 } }, REFRESH_MS * 2);
  return (
    <>
      <Section title="Readiness" id="readiness">
        <WhenLoaded loaded={ready} loading>
          {(data) => (
            <>
              <p class="lead" data-testid="readiness">
                The gateway is <Status ok={data.status === 'ready'}>{data.status === 'ready' ? 'ready' : 'not ready'}</Status>
              </p>
              <ChecksTable checks={data.checks} />
            </>
          )}
        </WhenLoaded>
      </Section>
      <div class="grid">
        <Section title="Fax jobs, last 24 hours" id="activity">
          <WhenLoaded loaded={activity}>{(data) => <ActivityChart buckets={data.buckets} />}</WhenLoaded>
        </Section>
        <Section title="Alerts firing now" id="alerts">
          <FiringAlerts refreshMs={REFRESH_MS} listClass="alerts" />
        </Section>
      </div>
      {/* The checks are readiness's, shown once above; this section is the plugins' health. */}
      <Section title="Plugin health" id="health">
        <WhenLoaded loaded={health}>{(data) => <PluginHealthTable plugins={data.plugins} />}</WhenLoaded>
      </Section>
    </>
  );
}
