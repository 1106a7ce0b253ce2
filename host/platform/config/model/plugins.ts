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
  PLUGIN_ISOLATION: z.string().default('').describe('Where plugins run, per plugin: `id=mode` pairs separated by commas, mode one of process, worker, in-process; over the manifest\'s `isolation`. Unnamed plugins: their manifest\'s choice, else in-process for built-ins and child processes for third-party code.'),
  PLUGIN_MEMORY_MB: integer(16).default(256).describe('Heap limit of an isolated plugin (a child process or worker), in MB; over it the plugin is stopped and restarted.'),
  PLUGIN_CALL_TIMEOUT_MS: integer(1).default(120000).describe('Milliseconds one call of an isolated plugin may take before its isolate is terminated and restarted.'),
  PLUGIN_UNRESPONSIVE_MS: integer(10).default(5000).describe("Milliseconds an isolated plugin's event loop may stay blocked (a ping unanswered) before its isolate is terminated and restarted."),
  PLUGIN_MAX_CONCURRENT_CALLS: integer(1).default(64).describe('Calls one isolated plugin serves at once; more are refused as not accepted (retried later).'),
  ALERT_ALLOW_HTTP_LOOPBACK: envOnly(flag().default(false).describe('Development only, environment only: allow http:// alert receivers (alert-sink plugins and alert targets) on 127.0.0.1, ::1 or localhost.')),
};
