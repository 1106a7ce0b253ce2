import { envOnly } from '../../../../core/sdk/settings.js';
import { z } from 'zod';
import { flag, integer, optionalText } from './field-kinds.js';

/** Configuration keys of where plugins are found and how long their lifecycle steps may take. */
export const PluginsKeys = {
  MANIFESTS_DIR: envOnly(optionalText().describe("Directory for dropped and registry-installed manifests, watched for changes and created mode 0700 when missing; unset means DATA_DIR/manifests. The package's manifests/ (the built-ins) is always searched too and never written.")),
  PLUGINS_PATH: envOnly(z.string().default('').describe('Extra directories searched for plugin manifests, separated by the path delimiter (":" on POSIX).')),
  PLUGIN_PATHS_ALLOW: envOnly(z
    .string()
    .default('')
    .describe('Environment only: absolute directories outside DATA_DIR that path settings of plugins (every `dataPath` field of a settings schema: the built-in retrieval index directory and local storage root among them) may name, separated by the path delimiter (":" on POSIX). Unset: such paths resolve inside DATA_DIR, and `..`, absolute paths elsewhere and symbolic links leading out are refused.')),
  SERVICE_CONFIG_PATH: envOnly(optionalText().describe('Path of the plugin config store; unset means DATA_DIR/plugins.config.json.')),
  PLUGIN_START_TIMEOUT_MS: integer(1).default(10000).describe('Milliseconds a plugin start may take before it is treated as failed.'),
  PLUGIN_STOP_TIMEOUT_MS: integer(1).default(5000).describe('Milliseconds a plugin stop may take before it is forced.'),
  PLUGIN_HEALTH_TIMEOUT_MS: integer(1).default(5000).describe("Milliseconds a plugin's health check may take before it counts as failed."),
  PLUGIN_RETRY_INITIAL_MS: integer(1).default(500).describe('Milliseconds before the first retry of a plugin whose start said it is not ready yet; each further retry waits twice as long.'),
  PLUGIN_RETRY_MAX_MS: integer(1).default(30000).describe('Longest wait between start retries of a plugin that is not ready yet.'),
  PLUGIN_DRAIN_TIMEOUT_MS: integer(1).default(30000).describe('Milliseconds an old plugin generation may keep serving leased requests after a reload.'),
  PLUGIN_ISOLATION: z.string().default('').describe('Where plugins run, per plugin: `id=mode` pairs separated by commas, mode one of process, worker, in-process; over the manifest\'s `isolation`. Unnamed plugins: their manifest\'s choice, else a child process for a plugin installed as a package (POST /plugin-registry/install) and in-process for the rest (built-ins, dropped-in folders).'),
  PLUGIN_MEMORY_MB: integer(16).default(256).describe('Heap limit of an isolated plugin (a child process or worker), in MB; over it the plugin is stopped and restarted.'),
  PLUGIN_CALL_TIMEOUT_MS: integer(1).default(120000).describe('Milliseconds one call of an isolated plugin may take before its isolate is terminated and restarted.'),
  PLUGIN_UNRESPONSIVE_MS: integer(10).default(5000).describe("Milliseconds an isolated plugin's event loop may stay blocked (a ping unanswered) before its isolate is terminated and restarted."),
  PLUGIN_MAX_CONCURRENT_CALLS: integer(1).default(64).describe('Calls one isolated plugin serves at once; more are refused as not accepted (retried later).'),
  PLUGIN_SIGNATURES: z.enum(['required', 'warn', 'off']).default('warn').describe('Signatures of installed plugin packages: `required` refuses an unsigned package (`package_unsigned`) or one signed by a key outside PLUGIN_TRUSTED_KEYS (`package_untrusted`); `warn` installs them and logs and audits a warning; `off` does not look. A signature that does not verify is always refused (`package_tampered`).'),
  PLUGIN_TRUSTED_KEYS: envOnly(z.string().default('').describe('Environment only: the public keys whose package signatures are trusted, as `SHA256:` fingerprints, base64 SPKI DER or PEM blocks, separated by commas or white space (`switchboard plugins verify` prints a package\'s signer). Public keys only: nothing secret.')),
  PLUGIN_VERSION_HISTORY: integer(1, 100).default(5).describe('Installed versions kept per plugin package (the current one included); older ones are deleted after an install.'),
  PLUGIN_PACKAGE_MAX_MB: integer(1, 32).default(32).describe('Largest plugin package accepted by POST /plugin-registry/install, uploaded or fetched, in megabytes.'),
  PLUGIN_PACKAGE_CA_FILE: envOnly(optionalText().describe('PEM file of extra certificate authorities trusted when fetching plugin packages by https URL (besides the system ones).')),
  ALERT_ALLOW_HTTP_LOOPBACK: envOnly(flag().default(false).describe('Development only, environment only: allow http:// alert receivers (alert-sink plugins and alert targets) on 127.0.0.1, ::1 or localhost.')),
};
