import { ActivityChart, type ActivityBucket } from '../chart.js';
import { ErrorNote, Section, Status, when } from '../components.js';
import { useApi } from '../hooks.js';
import { FiringAlerts, type Alert } from '../firing-alerts.js';

interface Check {
  name: string;
  ok: boolean;
  warning?: boolean;
  optional?: boolean;
  detail?: string;
}
interface Ready {
  status: 'ready' | 'not_ready';
  checks: Check[];
}
interface HealthStatus extends Ready {
  plugins: { id: string; state: string; generation: number | null; ok: boolean | null; detail: string | null; last_error: string | null }[];
}
const REFRESH_MS = 15_000;

function checkWord(c: Check): [boolean | null, string] {
  if (c.ok) return c.warning ? [null, 'warning'] : [true, 'ok'];
  return c.optional ? [null, 'not selected'] : [false, 'failing'];
}

function Checks({ checks }: { checks: Check[] }) {
  return (
    <table>
      <thead>
        <tr>
          <th scope="col">Check</th>
          <th scope="col">State</th>
          <th scope="col">Detail</th>
        </tr>
      </thead>
      <tbody>
        {checks.map((c) => {
          const [ok, word] = checkWord(c);
          return (
            <tr key={c.name}>
              <td>{c.name}</td>
              <td>
                <Status ok={ok}>{word}</Status>
              </td>
              <td class="hint">{c.detail ?? ''}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

export function OverviewPage() {
  const ready = useApi<Ready>('/health/ready', REFRESH_MS, [503]);
  const health = useApi<HealthStatus>('/admin/health-status', REFRESH_MS);
  const activity = useApi<{ buckets: ActivityBucket[] }>('/admin/fax-activity?hours=24', REFRESH_MS * 2);
  const alerts = useApi<{ alerts: Alert[] }>('/admin/alerts', REFRESH_MS);
  return (
    <>
      <Section title="Readiness" id="readiness">
        <ErrorNote error={ready.error} />
        {ready.data && (
          <>
            <p class="lead" data-testid="readiness">
              The gateway is <Status ok={ready.data.status === 'ready'}>{ready.data.status === 'ready' ? 'ready' : 'not ready'}</Status>
            </p>
            <Checks checks={ready.data.checks} />
          </>
        )}
        {!ready.data && !ready.error && <p class="note">Loading…</p>}
      </Section>
      <div class="grid">
        <Section title="Fax jobs, last 24 hours" id="activity">
          <ErrorNote error={activity.error} />
          {activity.data && <ActivityChart buckets={activity.data.buckets} />}
        </Section>
        <Section title="Alerts firing now" id="alerts">
          <FiringAlerts alerts={alerts} listClass="alerts" />
        </Section>
      </div>
      <Section title="Health status" id="health">
        <ErrorNote error={health.error} />
        {health.data && (
          <>
            <Checks checks={health.data.checks} />
            <h3>Plugins</h3>
            <table>
              <thead>
                <tr>
                  <th scope="col">Plugin</th>
                  <th scope="col">State</th>
                  <th scope="col">Generation</th>
                  <th scope="col">Health</th>
                  <th scope="col">Detail</th>
                </tr>
              </thead>
              <tbody>
                {health.data.plugins.map((p) => (
                  <tr key={p.id}>
                    <td class="mono">{p.id}</td>
                    <td>{p.state}</td>
                    <td>{p.generation ?? '—'}</td>
                    <td>
                      <Status ok={p.ok}>{p.ok === null ? 'n/a' : p.ok ? 'healthy' : 'unhealthy'}</Status>
                    </td>
                    <td class="hint">{p.last_error ?? p.detail ?? ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </>
        )}
      </Section>
    </>
  );
}
