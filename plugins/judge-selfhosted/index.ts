import { EgressDeniedError, definePlugin, z } from 'switchboard/sdk';
import { createSystemOneClient } from 'switchboard/sdk/judge';
import { getText } from './health-probe.js';

const settings = z.object({
  /** Loopback port of the self-hosted judge server (`switchboard judge-server`). */
  port: z.coerce.number().int().min(1).max(65535).default(58180),
});

const HINT = 'start the managed service (switchboard judge-server) or set system_one.provider to hosted';

/** The self-hosted judgment backend: POST http://127.0.0.1:{port}/v1/systemone, no credential. */
export default definePlugin({
  settings,
  env: { port: 'SELFHOSTED_HTTP_PORT' },
  start(ctx) {
    const base = `http://127.0.0.1:${ctx.settings.port}`;
    const client = createSystemOneClient({ http: ctx.http, url: `${base}/v1/systemone`, defaultModel: 'english' });
    return {
      providers: { judge: { ask: (request) => client.ask(request) } },
      // The server behind the plugin is optional until system_one.provider selects it: its
      // state is reported in `info` (`resident`, `loaded`) and GET /api/ready decides on it.
      async health() {
        try {
          // Not through ctx.http (fetch, so undici) but under the same egress list.
          const url = new URL(`${base}/health`);
          if (!ctx.http.allows(url)) throw new EgressDeniedError(url.host);
          const res = await getText(url, AbortSignal.any([AbortSignal.timeout(2000), ctx.signal]));
          const body = parseObject(res.body) as { loaded?: unknown };
          const loaded = Array.isArray(body.loaded) ? body.loaded.filter((c): c is string => typeof c === 'string') : [];
          const resident = res.status >= 200 && res.status < 300 && loaded.length > 0;
          return { ok: true, ...(resident ? {} : { detail: `no checkpoint is resident at ${base}: ${HINT}` }), info: { url: base, reachable: true, resident, loaded } };
        } catch (err) {
          // Not reachable is not ok; it is optional, so the gateway stays ready without it.
          const cause = (err as Error).message;
          return { ok: false, optional: true, detail: `the self-hosted judge at ${base} does not answer (${cause}): ${HINT}`, info: { url: base, reachable: false, resident: false, loaded: [] } };
        }
      },
    };
  },
});

function parseObject(text: string): unknown {
  try {
    return JSON.parse(text) ?? {};
  } catch {
    return {};
  }
}
