import { ConfigError, credentialOf, definePlugin, secret, z } from 'switchboard/sdk';
import { createSystemOneClient } from 'switchboard/sdk/judge';

const settings = z.object({
  /** Base URL of the hosted backend; the client posts to {hosted_url}/v1/systemone. */
  hosted_url: z.url().optional(),
  /**
   * The bearer credential; from the server environment (HOSTED_JUDGE_API_KEY). Sent only to a
   * hosted_url from the environment too: a hosted_url set at run time puts the plugin in needs-config.
   */
  api_key: credentialOf('hosted_url', secret(z.string().min(1))).optional(),
});

/** The hosted judgment backend: POST {hosted_url}/v1/systemone with a bearer credential. */
export default definePlugin({
  settings,
  env: { hosted_url: 'SYSTEM_ONE__HOSTED_URL', api_key: 'HOSTED_JUDGE_API_KEY' },
  start(ctx) {
    const base = ctx.settings.hosted_url;
    if (!base) throw new ConfigError('judge-hosted: hosted_url is required (system_one.hosted_url, env SYSTEM_ONE__HOSTED_URL)', 'hosted_url');
    const apiKey = ctx.settings.api_key;
    const client = createSystemOneClient({
      http: ctx.http,
      url: `${base.replace(/\/+$/, '')}/v1/systemone`,
      headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
      // A missing credential fails every call before anything is sent.
      unusable: () => (apiKey ? undefined : 'HOSTED_JUDGE_API_KEY is not set in the server environment; the hosted judge cannot be called'),
      defaultModel: 'system-one-latest',
    });
    const missingKey = 'HOSTED_JUDGE_API_KEY is not set in the server environment';
    return {
      providers: {
        judge: {
          ask: (request) => client.ask(request),
          // A service reached over the network: ready once it can be called (judge contract 1.2).
          served: 'network',
          readiness: async () => (apiKey ? { ready: true } : { ready: false, detail: missingKey, hint: 'set HOSTED_JUDGE_API_KEY in the server environment and restart' }),
        },
      },
      health: () => (apiKey ? { ok: true } : { ok: false, detail: missingKey }),
    };
  },
});
