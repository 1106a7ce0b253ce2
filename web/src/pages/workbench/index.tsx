import { useGet } from '../../hooks/use-api.js';
import { Accounting } from './accounting.js';
import { Alerts } from './alerts.js';
import { Containers } from './containers.js';
import { Judge } from './judge.js';
import { Webhooks } from './webhooks.js';

/** Workbench: the judge backend, run accounting, containers, alerts and their webhook targets. */
export function WorkbenchPage() {
  const deliveries = useGet('/admin/alerts/deliveries', { query: { limit: 20 } }, 10_000);
  return (
    <>
      <div class="grid">
        <Judge />
        <Accounting />
      </div>
      <Containers />
      <Alerts deliveries={deliveries} />
      {/* A test alert is delivered in the background: read the deliveries again a few times. */}
      <Webhooks onSent={() => [300, 1000, 2500, 5000].forEach((ms) => setTimeout(deliveries.reload, ms))} />
    </>
  );
}
