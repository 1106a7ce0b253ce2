import { ErrorNote, Status, when } from './components.js';
import type { Loaded } from './hooks.js';

/** An alert firing now, as `GET /admin/alerts` lists it. */
export interface Alert {
  id: string;
  type?: string;
  severity: string;
  title: string;
  fired_at: string;
}

/** The alerts firing now (or a plain "none"), with the API's error when the list could not be read. */
export function FiringAlerts({ alerts, listClass }: { alerts: Loaded<{ alerts: Alert[] }>; listClass: string }) {
  return (
    <>
      <ErrorNote error={alerts.error} />
      {alerts.data &&
        (alerts.data.alerts.length === 0 ? (
          <p>
            <Status ok={true}>none</Status> No alert is firing.
          </p>
        ) : (
          <ul class={listClass}>
            {alerts.data.alerts.map((a) => (
              <li key={a.id}>
                <Status ok={false}>{a.severity}</Status> <strong>{a.title}</strong> <span class="hint">since {when(a.fired_at)}</span>
              </li>
            ))}
          </ul>
        ))}
    </>
  );
}
