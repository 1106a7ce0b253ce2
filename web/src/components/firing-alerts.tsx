import { when } from '../format.js';
import { useGet } from '../hooks/use-api.js';
import { WhenLoaded } from './notes.js';
import { Status } from './status.js';

/** The alerts firing now (`GET /admin/alerts`, re-read every `refreshMs`), or a plain "none". */
export function FiringAlerts({ refreshMs, listClass }: { refreshMs: number; listClass: string }) {
  const alerts = useGet('/admin/alerts', {}, refreshMs);
  return (
    <WhenLoaded loaded={alerts}>
      {(data) =>
        data.alerts.length === 0 ? (
          <p>
            <Status ok={true}>none</Status> No alert is firing.
          </p>
        ) : (
          <ul class={listClass}>
            {data.alerts.map((a) => (
              <li key={a.id}>
                <Status ok={false}>{a.severity}</Status> <strong>{a.title}</strong> <span class="hint">since {when(a.fired_at)}</span>
              </li>
            ))}
          </ul>
        )
      }
    </WhenLoaded>
  );
}
