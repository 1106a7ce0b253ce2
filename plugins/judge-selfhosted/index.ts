import { definePlugin, z } from 'switchboard/sdk';
import { createSystemOneClient } from 'switchboard/sdk/judge';

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
          const res = await ctx.http.fetch(`${base}/health`, { timeoutMs: 2000, maxRedirects: 0 });
          const body = (await res.json().catch(() => ({}))) as { loaded?: unknown };
          const loaded = Array.isArray(body.loaded) ? body.loaded.filter((c): c is string => typeof c === 'string') : [];
          const resident = res.ok && loaded.length > 0;
          return { ok: true, ...(resident ? {} : { detail: `no checkpoint is resident at ${base}: ${HINT}` }), info: { url: base, reachable: true, resident, loaded } };
        } catch (err) {
          // Not reachable is not ok; it is optional, so the gateway stays ready without it.
          const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message;
          return { ok: false, optional: true, detail: `the self-hosted judge at ${base} does not answer (${cause}): ${HINT}`, info: { url: base, reachable: false, resident: false, loaded: [] } };
        }
      },
    };
  },
});
