import { ApiError, createSwitchboardClient, type SwitchboardClient } from '../../clients/typescript/src/index.js';
import type { CliOutput } from './main.js';

/** The running gateway the commands talk to: SWITCHBOARD_URL (its key is SWITCHBOARD_API_KEY). */
function gatewayUrl(env: NodeJS.ProcessEnv = process.env): string {
  return (env.SWITCHBOARD_URL || 'http://127.0.0.1:8080').replace(/\/+$/, '');
}

/** Runs a command that talks to the gateway; its failure is one readable line and exit code 1. */
export async function withGateway(io: CliOutput, run: (client: SwitchboardClient) => Promise<number>, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const baseUrl = gatewayUrl(env);
  try {
    return await run(createSwitchboardClient({ baseUrl, apiKey: env.SWITCHBOARD_API_KEY || undefined }));
  } catch (err) {
    // A 2xx whose body is not JSON: SWITCHBOARD_URL names some other web server.
    if (err instanceof SyntaxError) io.err(`switchboard: the gateway at ${baseUrl} answered something other than JSON`);
    else if (!(err instanceof ApiError)) throw err;
    else io.err(`switchboard: ${failureLine(err, baseUrl)}`);
    return 1;
  }
}

function failureLine(err: ApiError, baseUrl: string): string {
  if (err.status === 0) {
    const cause = err.cause as { cause?: { code?: string }; message?: string } | undefined;
    return `no gateway answers at ${baseUrl} (${cause?.cause?.code ?? cause?.message ?? err.detail}): start one with \`switchboard start\` or set SWITCHBOARD_URL`;
  }
  // A body that was not the API's `{detail, code}` (a proxy's page): its start is enough.
  const notTheApi = err.code === `http_${err.status}`;
  const hint = err.status === 401 || err.status === 403 ? ' (set SWITCHBOARD_API_KEY to a key with the scope this needs)' : '';
  return `HTTP ${err.status}${notTheApi ? '' : ` ${err.code}`}: ${notTheApi ? err.detail.slice(0, 200) : err.detail}${hint}`;
}
