import { EgressDeniedError, definePlugin, z, type JudgeReadiness } from 'switchboard/sdk';
import { createSystemOneClient } from 'switchboard/sdk/judge';
import { getText } from './health-probe.js';
import { runningServerPort } from './server-address.js';

const settings = z.object({
  /** Loopback port of the self-hosted judge server (`switchboard judge-server`), unless a running server says which port it took. */
  port: z.coerce.number().int().min(1).max(65535).default(58180),
});

const HINT = 'start the managed service (switchboard judge-server) or set system_one.provider to hosted';

/** What the judge server's GET /health said: whether it answered, and the checkpoints resident. */
interface ServerState {
  responding: boolean;
  resident: boolean;
  loaded: string[];
  /** Why it is not ready, with the hint. */
  detail?: string;
}

/** The self-hosted judgment backend: POST http://127.0.0.1:{port}/v1/systemone, no credential. */
export default definePlugin({
  settings,
  env: { port: 'SELFHOSTED_HTTP_PORT' },
  start(ctx) {
    // Read at every call: a judge server started (or restarted on another port) after this
    // generation is found through the address it wrote under DATA_DIR.
    const baseUrl = () => `http://127.0.0.1:${runningServerPort(ctx.dataDir) ?? ctx.settings.port}`;
    const clients = new Map<string, ReturnType<typeof createSystemOneClient>>();
    const client = () => {
      const url = `${baseUrl()}/v1/systemone`;
      if (!clients.has(url)) clients.set(url, createSystemOneClient({ http: ctx.http, url, defaultModel: 'english' }));
      return clients.get(url)!;
    };
    let base = baseUrl();
    const info = (state: ServerState) => ({ url: base, reachable: state.responding, resident: state.resident, loaded: state.loaded });

    /** The server's GET /health: ready once a checkpoint is resident. */
    async function check(): Promise<ServerState> {
      base = baseUrl();
      try {
        // Not through ctx.http (fetch, so undici) but under the same egress list.
        const url = new URL(`${base}/health`);
        if (!ctx.http.allows(url)) throw new EgressDeniedError(url.host);
        const res = await getText(url, AbortSignal.any([AbortSignal.timeout(2000), ctx.signal]));
        const body = parseObject(res.body) as { loaded?: unknown };
        const loaded = Array.isArray(body.loaded) ? body.loaded.filter((c): c is string => typeof c === 'string') : [];
        const resident = res.status >= 200 && res.status < 300 && loaded.length > 0;
        return { responding: true, resident, loaded, ...(resident ? {} : { detail: `no checkpoint is resident at ${base}: ${HINT}` }) };
      } catch (err) {
        return { responding: false, resident: false, loaded: [], detail: `the self-hosted judge at ${base} does not answer (${(err as Error).message}): ${HINT}` };
      }
    }

    return {
      providers: {
        judge: {
          ask: (request) => client().ask(request),
          // A server on this machine: ready once a model is resident (judge contract 1.2).
          served: 'local',
          async readiness(): Promise<JudgeReadiness> {
            const state = await check();
            return { ready: state.resident, responding: state.responding, ...(state.detail ? { detail: state.detail, hint: HINT } : {}), info: info(state) };
          },
        },
      },
      // The server is optional until system_one.provider selects it: a running server is healthy
      // whether a checkpoint is resident or not (readiness says that), one that does not answer
      // is not, without making the gateway not ready.
      async health() {
        const state = await check();
        if (state.responding) return { ok: true, ...(state.detail ? { detail: state.detail } : {}), info: info(state) };
        return { ok: false, optional: true, ...(state.detail ? { detail: state.detail } : {}), info: info(state) };
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
