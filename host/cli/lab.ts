import { readFile } from 'node:fs/promises';
import { ApiError, createSwitchboardClient, unwrap, type ApiBody, type LabRun } from '../../clients/typescript/src/index.js';
import type { CliOutput } from './main.js';

export const LAB_USAGE = `usage: switchboard lab run <rows.json> [--gate-min N] [--url URL]
       switchboard lab retry <run-id> [--url URL]

rows.json holds [{"question", "quote", "expected_answer"}, ...]. URL defaults to
http://127.0.0.1:$PORT (8080); an API key is read from SWITCHBOARD_API_KEY.`;

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

/** `switchboard lab run|retry`: the synthetic-data lab through a running gateway. Exit 0 when the run succeeded. */
export async function runLab(args: string[], io: CliOutput, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const [command, target] = args;
  const client = createSwitchboardClient({ baseUrl: option(args, '--url') ?? `http://127.0.0.1:${env.PORT ?? 8080}`, apiKey: env.SWITCHBOARD_API_KEY || undefined });
  let call: Promise<LabRun>;
  if (command === 'run' && target) {
    let rows: ApiBody<'/api/lab/runs', 'post'>['rows'];
    try {
      rows = JSON.parse(await readFile(target, 'utf8'));
    } catch (err) {
      io.err(`switchboard lab: cannot read ${target}: ${(err as Error).message}`);
      return 2;
    }
    const gate = option(args, '--gate-min');
    call = unwrap(client.POST('/api/lab/runs', { body: { rows, ...(gate !== undefined ? { gate_min: Number(gate) } : {}) } }));
  } else if (command === 'retry' && target) {
    call = unwrap(client.POST('/api/lab/runs/{id}/retry', { params: { path: { id: target } } }));
  } else {
    io.err(LAB_USAGE);
    return 2;
  }
  let run: LabRun;
  try {
    run = await call;
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    // No answer (status 0) or the gateway's fault: the task failed; a refused request is a usage error.
    io.err(`switchboard lab: ${err.status ? `${err.status} ` : ''}${err.detail}`.trim());
    return err.status === 0 || err.status >= 500 ? 1 : 2;
  }
  io.out(`run ${run.id}: ${run.state} (attempt ${run.attempts})`);
  if (run.state === 'succeeded') {
    for (const row of run.results ?? []) {
      const s = row.scores;
      io.out(`  row ${row.index}: ${row.passed ? 'pass' : 'fail'}  reader_question=${s.reader_question.toFixed(3)} answer_supported=${s.answer_supported.toFixed(3)} answer_cued_in_question=${s.answer_cued_in_question.toFixed(3)}`);
    }
    io.out(`passed ${run.summary?.passed} of ${run.summary?.rows}; cued ${run.summary?.cued}`);
    return 0;
  }
  io.out(`failed: ${run.error?.outcome}: ${run.error?.detail}`);
  io.out(`retry with: switchboard lab retry ${run.id}`);
  return 1;
}
