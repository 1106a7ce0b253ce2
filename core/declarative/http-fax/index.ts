/** The runtime of the manifest `http` block: fax providers defined by a JSON manifest alone. */
import {
  ConfigError,
  definePlugin,
  secretFields,
  type HealthResult,
  type PluginDefinition,
} from '../../sdk/index.js';
import { envMapFromManifest, settingsSchemaFromManifest, type Manifest } from '../../manifest/index.js';
import { createHttpFaxProvider } from './fax-provider.js';
import { httpRuntimeDiagnostics } from './runtime-diagnostics.js';
import { renderUrl } from './request-url.js';
import { RequestRenderError } from '../template/template-render.js';
import { templateValues } from './template-values.js';

export { httpRuntimeDiagnostics } from './runtime-diagnostics.js';
export { renderDryRun, publicUrlWarnings, SAMPLE_TO, type DryRunRequest, type DryRunSample, type DryRunEgress } from './dry-run.js';
export { readResponsePath, parseResponsePath } from './response-path.js';

// Call values for checks made without a call: rendering the send URL at start and in health.
const PROBE_CALL = { to: '+15551234567', job_id: 'probe', document_url: 'https://example.invalid/document.pdf' };

/** The declarative factory of the kernel for manifests with an `http` block. */
export function createHttpFaxPlugin(manifest: Manifest): PluginDefinition {
  const block = manifest.http;
  if (!block) throw new TypeError(`manifest ${manifest.id} has no "http" block`);
  const settings = settingsSchemaFromManifest(manifest.settings);
  const secrets = secretFields(settings);
  const unsupported = httpRuntimeDiagnostics(manifest);

  return definePlugin({
    settings,
    env: envMapFromManifest(manifest.settings),
    start(ctx) {
      if (unsupported.length) throw new Error(unsupported.map((d) => `${d.path}: ${d.message}`).join('; '));
      const values = () => templateValues(ctx.settings as Record<string, unknown>, secrets, PROBE_CALL);
      let sendHost: string;
      try {
        sendHost = renderUrl(block.actions.send, values()).host;
      } catch (err) {
        // A base URL setting that is not a URL: wait for the settings to be fixed.
        if (err instanceof RequestRenderError) {
          const field = err.expression?.match(/^(?:settings|secrets)\.(.+)$/)?.[1];
          throw new ConfigError(err.message, field);
        }
        throw err;
      }
      return {
        providers: { fax: createHttpFaxProvider(block, ctx, secrets, `provider "${manifest.id}"`) },
        health(): HealthResult {
          const url = renderUrl(block.actions.send, values());
          if (!ctx.http.allows(url)) return { ok: false, checked: 'shape', detail: `the send URL's host ${url.host} is not in the manifest's egress list`, info: { send_host: url.host } };
          // A declarative provider has no probe call: the send URL renders and is allowed, no more.
          return { ok: true, checked: 'shape', info: { send_host: sendHost, actions: Object.keys(block.actions) } };
        },
      };
    },
  });
}
