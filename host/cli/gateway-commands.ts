import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { unwrap, type FaxJob } from '../../clients/typescript/src/index.js';
import { parseCommandArgs, UsageError, type CliCommand } from './cli-command.js';
import { withGateway } from './gateway-connection.js';
import type { CliOutput } from './main.js';

const GATEWAY_NOTE = `The gateway is SWITCHBOARD_URL (default http://127.0.0.1:8080); the API key is read
from SWITCHBOARD_API_KEY (sent as X-API-Key). --json prints the gateway's answer as it came.`;

const print = (io: CliOutput, json: boolean, body: unknown, lines: () => string[]) => {
  if (json) io.out(JSON.stringify(body, null, 2));
  else for (const line of lines()) io.out(line);
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const INDEX_COMMAND: CliCommand = {
  name: 'index',
  summary: 'start indexing a repository of a running gateway (--wait: until it ends)',
  usage: `usage: switchboard index [--repo R] [--wait] [--json]

Starts an indexing run (POST /api/index/start) of repository R (default: the gateway's REPO).
With --wait, prints the run's status lines until it ends; exit 1 when it failed.

${GATEWAY_NOTE}`,
  run: (args, io) => {
    const { values, positionals } = parseCommandArgs(args, { repo: { type: 'string' }, wait: { type: 'boolean' }, json: { type: 'boolean' } });
    if (positionals.length) throw new UsageError(`unexpected argument: ${positionals[0]}`);
    return withGateway(io, async (client) => {
      const started = await unwrap(client.POST('/api/index/start', { body: values.repo ? { repo: values.repo } : {} }));
      if (!values.wait) {
        print(io, !!values.json, started, () => [`indexing ${started.repo}: run ${started.id} started (switchboard index --wait follows it)`]);
        return 0;
      }
      for (;;) {
        const status = await unwrap(client.GET('/api/index/status', { params: { query: { repo: started.repo } } }));
        if (status.metadata.finished_at) {
          print(io, !!values.json, status, () => status.status);
          return status.run?.state === 'failed' ? 1 : 0;
        }
        await sleep(1000);
      }
    });
  },
};

export const SEARCH_COMMAND: CliCommand = {
  name: 'search',
  summary: 'search the code of an indexed repository',
  usage: `usage: switchboard search <query> [--repo R] [--top-k N] [--json]

Retrieval only (GET /api/search): the best chunks, each as path:lines and score, then its first lines.

${GATEWAY_NOTE}`,
  run: (args, io) => {
    const { values, positionals } = parseCommandArgs(args, { repo: { type: 'string' }, 'top-k': { type: 'string' }, json: { type: 'boolean' } });
    if (positionals.length === 0) throw new UsageError('a query is required');
    const topK = values['top-k'];
    if (topK !== undefined && !/^\d+$/.test(topK)) throw new UsageError('--top-k needs a whole number');
    const query = { q: positionals.join(' '), ...(values.repo ? { repo: values.repo } : {}), ...(topK ? { top_k: topK } : {}) };
    return withGateway(io, async (client) => {
      const answer = await unwrap(client.GET('/api/search', { params: { query } }));
      print(io, !!values.json, answer, () =>
        answer.results.length === 0
          ? [`no results in ${answer.repo} (is it indexed? switchboard index --repo ${answer.repo} --wait)`]
          : answer.results.flatMap((r) => [`${r.path}:${r.start_line}-${r.end_line}  (score ${r.score.toFixed(3)})`, ...r.snippet.split('\n').slice(0, 3).map((l) => `    ${l}`)]),
      );
      return 0;
    });
  },
};

export const KEYS_COMMAND: CliCommand = {
  name: 'keys',
  summary: 'mint, list or revoke API keys of a running gateway',
  usage: `usage: switchboard keys mint <name> --scopes s1,s2 [--expires-at ISO] [--json]
       switchboard keys list [--json]
       switchboard keys revoke <key-id> [--json]

mint prints the token once: store it (export SWITCHBOARD_API_KEY=<token>). The first key of a
gateway without API_KEY is minted from this machine and must include the admin scope.

${GATEWAY_NOTE}`,
  run: (args, io) => {
    const [verb, ...rest] = args;
    const { values, positionals } = parseCommandArgs(rest, { scopes: { type: 'string' }, 'expires-at': { type: 'string' }, json: { type: 'boolean' } });
    const json = !!values.json;
    if (verb === 'mint') {
      if (positionals.length !== 1 || !values.scopes) throw new UsageError('keys mint needs a name and --scopes');
      const body = { name: positionals[0]!, scopes: values.scopes.split(',').map((s) => s.trim()).filter(Boolean), ...(values['expires-at'] ? { expires_at: values['expires-at'] } : {}) };
      return withGateway(io, async (client) => {
        const minted = await unwrap(client.POST('/admin/api-keys', { body }));
        print(io, json, minted, () => [`minted ${minted.key_id} (${minted.name}; scopes ${minted.scopes.join(' ')})`, `token (shown once): ${minted.token}`]);
        return 0;
      });
    }
    if (verb === 'list') {
      if (positionals.length) throw new UsageError(`unexpected argument: ${positionals[0]}`);
      return withGateway(io, async (client) => {
        const { keys } = await unwrap(client.GET('/admin/api-keys'));
        print(io, json, { keys }, () =>
          keys.length === 0 ? ['no keys'] : keys.map((k) => `${k.key_id}  ${k.name}  ${k.scopes.join(' ')}${k.revoked_at ? '  revoked' : ''}${k.expires_at ? `  expires ${k.expires_at}` : ''}`),
        );
        return 0;
      });
    }
    if (verb === 'revoke') {
      if (positionals.length !== 1) throw new UsageError('keys revoke needs a key id');
      return withGateway(io, async (client) => {
        const meta = await unwrap(client.DELETE('/admin/api-keys/{keyId}', { params: { path: { keyId: positionals[0]! } } }));
        print(io, json, meta, () => [`revoked ${meta.key_id} (${meta.name})`]);
        return 0;
      });
    }
    throw new UsageError(verb === undefined ? 'keys needs mint, list or revoke' : `unknown keys command: ${verb}`);
  },
};

const faxLine = (job: FaxJob) => `${job.id}  ${job.status}  to ${job.to}  via ${job.backend}${job.pages !== undefined ? `  ${job.pages} page(s)` : ''}${job.error ? `  error: ${job.error}` : ''}`;

export const FAX_COMMAND: CliCommand = {
  name: 'fax',
  summary: 'send a fax or show a job of a running gateway',
  usage: `usage: switchboard fax send <number> <file> [--json]
       switchboard fax status <job-id> [--json]

send uploads the file (PDF, text, PNG, JPEG or TIFF) to POST /fax and prints the job id;
status prints the job (GET /fax/{id}).

${GATEWAY_NOTE}`,
  run: (args, io) => {
    const [verb, ...rest] = args;
    const { values, positionals } = parseCommandArgs(rest, { json: { type: 'boolean' } });
    const json = !!values.json;
    if (verb === 'send') {
      if (positionals.length !== 2) throw new UsageError('fax send needs a number and a file');
      const [to, file] = positionals as [string, string];
      return withGateway(io, async (client) => {
        let bytes: Buffer;
        try {
          bytes = await readFile(file);
        } catch (err) {
          io.err(`switchboard: cannot read ${file}: ${(err as Error).message}`);
          return 1;
        }
        const job = await client.sendFax({ to, file: bytes, filename: path.basename(file) });
        print(io, json, job, () => [faxLine(job), `follow it: switchboard fax status ${job.id}`]);
        return 0;
      });
    }
    if (verb === 'status') {
      if (positionals.length !== 1) throw new UsageError('fax status needs a job id');
      return withGateway(io, async (client) => {
        const job = await unwrap(client.GET('/fax/{id}', { params: { path: { id: positionals[0]! } } }));
        print(io, json, job, () => [faxLine(job)]);
        return job.status === 'FAILED' ? 1 : 0;
      });
    }
    throw new UsageError(verb === undefined ? 'fax needs send or status' : `unknown fax command: ${verb}`);
  },
};

/** `switchboard plugins list`: the plugins of a running gateway and their states. */
export async function listPlugins(args: string[], io: CliOutput): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, { json: { type: 'boolean' } });
  if (positionals.length) throw new UsageError(`unexpected argument: ${positionals[0]}`);
  return withGateway(io, async (client) => {
    const { plugins } = await unwrap(client.GET('/plugins'));
    print(io, !!values.json, { plugins }, () => plugins.map((p) => `${p.id}${p.version ? `@${p.version}` : ''}  ${p.kinds.join(',') || '-'}  ${p.state}${p.last_error ? `  ${p.last_error}` : ''}`));
    return 0;
  });
}
