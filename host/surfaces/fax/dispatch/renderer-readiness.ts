import type { Kernel } from '../../../../core/kernel/kernel.js';
import type { FaxConfig } from '../fax-settings.js';
import type { CheckResult } from '../../../platform/health/readiness.js';

/**
 * Readiness of the PDF-to-TIFF renderer (ghostscript). Only backends that declare the
 * `tiff-render` capability need it: for any other, or none yet, a missing gs
 * is a warning, so a fresh install without ghostscript is ready.
 */
export async function pdfRendererCheck(deps: { config: FaxConfig; kernel: Kernel; version: () => Promise<string | null> }): Promise<CheckResult> {
  const version = await deps.version();
  if (version) return { ok: true, info: { ghostscript: version } };
  const backend = deps.config.get('FAX_BACKEND');
  const needed = !deps.config.get('FAX_DISABLED') && (deps.kernel.manifestOf(backend)?.capabilities ?? []).includes('tiff-render');
  if (needed) return { ok: false, detail: `ghostscript (gs) not found: the fax backend "${backend}" renders TIFF with it; install the ghostscript package`, info: { backend } };
  return { ok: true, warning: true, detail: `ghostscript (gs) not found: not needed by the fax backend "${backend}"; install the ghostscript package before choosing one that renders TIFF (capability "tiff-render")`, info: { backend } };
}
