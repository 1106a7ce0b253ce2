/**
 * A call in flight when an isolated plugin stopped (it crashed, ran out of memory, blocked its
 * event loop or overran its call deadline). Retryable: the plugin restarts with backoff. A fax
 * send failing so may have reached the provider, so the dispatcher looks it up instead of resending.
 */
export class PluginCrashedError extends Error {
  readonly code = 'plugin_crashed';
  constructor(
    readonly pluginId: string,
    readonly reason: string,
    readonly retryAfterSeconds = 1,
  ) {
    super(`plugin "${pluginId}" stopped while serving the request: ${reason}`);
    this.name = 'PluginCrashedError';
  }
}
