import type { Kernel } from '../../../../core/kernel/kernel.js';
import type { FaxConfig } from '../fax-settings.js';
import type { CheckResult } from '../../../platform/health/readiness.js';
import type { FaxService } from '../jobs/fax-service.js';

/**
 * The `fax_backend` readiness check. "No backend configured" means FAX_BACKEND was never set
 * (its source is the built-in default) and that default provider waits in needs-config: a
 * fresh install. That is a warning, so a fresh install is ready; any other backend that is not
 * active (chosen on purpose, or configured and broken) fails readiness.
 */
export function faxBackendCheck(deps: { config: FaxConfig; kernel: Kernel; service: FaxService }): CheckResult {
  const { config, kernel, service } = deps;
  const backend = config.get('FAX_BACKEND');
  if (config.get('FAX_DISABLED')) return { ok: true, detail: 'FAX_DISABLED: jobs are stored, not sent', info: { backend } };
  const problem = service.backendProblem();
  if (!problem) return { ok: true, info: { backend } };
  const state = kernel.stateOf(backend);
  if (config.effective().source.FAX_BACKEND === 'default' && state === 'needs-config') {
    return {
      ok: true,
      warning: true,
      detail: `not configured: no fax backend is set up yet (FAX_BACKEND is unset; its default "${backend}" waits for its settings); faxes are refused with 503 until one is`,
      info: { backend, state },
    };
  }
  return { ok: false, detail: problem, info: { backend, state } };
}
