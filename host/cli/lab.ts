import { readFile } from 'node:fs/promises';
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
  const base = (option(args, '--url') ?? `http://127.0.0.1:${env.PORT ?? 8080}`).replace(/\/+$/, '');
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(env.SWITCHBOARD_API_KEY ? { 'x-api-key': env.SWITCHBOARD_API_KEY } : {}) };
  let res: Response;
  if (command === 'run' && target) {
    let rows: unknown;
    try {
      rows = JSON.parse(await readFile(target, 'utf8'));
    } catch (err) {
      io.err(`switchboard lab: cannot read ${target}: ${(err as Error).message}`);
      return 2;
    }
    const gate = option(args, '--gate-min');
    res = await fetch(`${base}/api/lab/runs`, { method: 'POST', headers, body: JSON.stringify({ rows, ...(gate !== undefined ? { gate_min: Number(gate) } : {}) }) });
  } else if (command === 'retry' && target) {
    res = await fetch(`${base}/api/lab/runs/${encodeURIComponent(target)}/retry`, { method: 'POST', headers });
  } else {
    io.err(LAB_USAGE);
    return 2;
  }
  const body = (await res.json().catch(() => ({}))) as Record<string, any>;
  if (!res.ok) {
    io.err(`switchboard lab: ${res.status} ${body.detail ?? ''}`.trim());
    return res.status >= 500 ? 1 : 2;
  }
  io.out(`run ${body.id}: ${body.state} (attempt ${body.attempts})`);
  if (body.state === 'succeeded') {
    for (const row of body.results) {
      const s = row.scores;
      io.out(`  row ${row.index}: ${row.passed ? 'pass' : 'fail'}  reader_question=${s.reader_question.toFixed(3)} answer_supported=${s.answer_supported.toFixed(3)} answer_cued_in_question=${s.answer_cued_in_question.toFixed(3)}`);
    }
    io.out(`passed ${body.summary.passed} of ${body.summary.rows}; cued ${body.summary.cued}`);
    return 0;
  }
  io.out(`failed: ${body.error?.outcome}: ${body.error?.detail}`);
  io.out(`retry with: switchboard lab retry ${body.id}`);
  return 1;
}
