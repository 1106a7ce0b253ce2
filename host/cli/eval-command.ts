import { formatReport, runEvaluation, selectQuestions, type EvalSearch } from '../surfaces/search/evaluation/eval-runner.js';
import { GoldenSetError, readGoldenFile } from '../surfaces/search/evaluation/golden-set.js';
import type { TraceStore } from '../surfaces/search/traces/trace-store.js';
import type { CliOutput } from './main.js';

/** What `switchboard eval` needs of a gateway built in this process (nothing listens). */
export interface EvalHost {
  search: EvalSearch;
  traces: TraceStore;
  /** The repository of a name (REPO when undefined); throws for an unknown or non-plain name. */
  resolveRepo(name: string | undefined): string;
  /** Indexes a repository and resolves when the run finished (for --index). */
  index(repo: string): Promise<void>;
  close(): Promise<void>;
}

export const EVAL_USAGE = `usage: switchboard eval --golden <file> [--repo R] [--top-k N] [--index] [--min-hit5 X] [--json]

  --golden <file>  golden set: [{"q": "...", "repo": "...", "expect_paths": ["path substring", ...]}]
  --repo R         only the questions of repository R (and those naming none)
  --top-k N        results asked for per question (default 20, 10..100)
  --index          index each repository first (incremental) and wait for the run
  --min-hit5 X     exit 1 when hit@5 is below X (0..1)
  --json           print the whole report as JSON

exit codes: 0 ok, 1 below --min-hit5 or a failed search, 2 usage error or malformed golden set`;

interface EvalArgs {
  golden: string;
  repo?: string;
  topK?: number;
  index: boolean;
  minHit5?: number;
  json: boolean;
}

/** Parses the arguments after `eval`; a string is the usage problem. */
export function parseEvalArgs(args: string[]): EvalArgs | string {
  const out: Partial<EvalArgs> = { index: false, json: false };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const value = () => {
      const v = args[++i];
      if (v === undefined || v.startsWith('--')) throw new Error(`${arg} needs a value`);
      return v;
    };
    try {
      if (arg === '--golden') out.golden = value();
      else if (arg === '--repo') out.repo = value();
      else if (arg === '--top-k') {
        const n = Number(value());
        if (!Number.isInteger(n) || n < 10 || n > 100) return '--top-k must be an integer from 10 to 100';
        out.topK = n;
      } else if (arg === '--min-hit5') {
        const x = Number(value());
        if (!Number.isFinite(x) || x < 0 || x > 1) return '--min-hit5 must be a number from 0 to 1';
        out.minHit5 = x;
      } else if (arg === '--index') out.index = true;
      else if (arg === '--json') out.json = true;
      else return `unknown argument: ${arg}`;
    } catch (err) {
      return (err as Error).message;
    }
  }
  if (!out.golden) return '--golden <file> is required';
  return out as EvalArgs;
}

/** `switchboard eval`: resolves to the exit code. */
export async function evalCommand(args: string[], io: CliOutput, openHost: () => Promise<EvalHost>): Promise<number> {
  const parsed = parseEvalArgs(args);
  if (typeof parsed === 'string') {
    io.err(`${parsed}\n\n${EVAL_USAGE}`);
    return 2;
  }
  let golden;
  try {
    golden = await readGoldenFile(parsed.golden);
  } catch (err) {
    if (err instanceof GoldenSetError) {
      io.err(`switchboard eval: ${err.message}`);
      return 2;
    }
    throw err;
  }
  const host = await openHost();
  try {
    let defaultRepo: string;
    let only: string | undefined;
    try {
      defaultRepo = host.resolveRepo(undefined);
      only = parsed.repo === undefined ? undefined : host.resolveRepo(parsed.repo);
      const selected = selectQuestions(golden, defaultRepo, only);
      if (!selected.length) throw new Error(`no question of ${parsed.golden} is about repository "${only}"`);
      for (const repo of new Set(selected.map((g) => g.repo))) host.resolveRepo(repo);
      if (parsed.index) for (const repo of new Set(selected.map((g) => g.repo))) await host.index(repo);
    } catch (err) {
      io.err(`switchboard eval: ${(err as Error).message}`);
      return 2;
    }
    const report = await runEvaluation({ golden, search: host.search, defaultRepo, repo: only, topK: parsed.topK, traces: host.traces, label: parsed.golden });
    if (parsed.json) io.out(JSON.stringify(report, null, 2));
    else for (const line of formatReport(report)) io.out(line);
    if (parsed.minHit5 !== undefined && report.summary.hit_at_5 < parsed.minHit5) {
      io.err(`switchboard eval: hit@5 ${report.summary.hit_at_5} is below --min-hit5 ${parsed.minHit5}`);
      return 1;
    }
    return 0;
  } finally {
    await host.close();
  }
}
