// Ranking quality on every golden set with BM25 alone (EMBEDDING_MODEL=''): per-set hit@5 and
// MRR@10 with the rules as shipped, each rule's effect per set (that rule flipped alone), and
// leave-one-set-out figures: for each set, every rule is on only when it raises the other sets'
// mean MRR@10, then the held-out set is measured with that choice. `npm run bench -- golden-sets`; the foreign sets' code is fetched first by
// test/fixtures/golden/fetch-corpora.mjs.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, startGateway } from '../test/support/gateway.js';
import { RANKING_RULES, type RankingRule } from '../core/sdk/retrieval/ranking-rules.js';
import { FILE_CLASS_FACTORS } from '../core/sdk/retrieval/file-class.js';
import { WEIGHTS } from '../core/sdk/retrieval/sparse-rescoring.js';
import { runEvaluation } from '../host/surfaces/search/evaluation/eval-runner.js';
import type { GoldenQuestion } from '../host/surfaces/search/evaluation/golden-set.js';

const { corpora } = (await import(pathToFileURL(path.join(ROOT, 'test/fixtures/golden/fetch-corpora.mjs')).href)) as { corpora: () => Record<string, string> };
const repos: Record<string, string> = { switchboard: ROOT, pino: path.join(ROOT, 'node_modules/pino'), ...corpora() };
const SETS = Object.keys(repos);
const golden: Record<string, GoldenQuestion[]> = Object.fromEntries(SETS.map((s) => [s, JSON.parse(readFileSync(path.join(ROOT, `test/fixtures/golden/${s}.json`), 'utf8'))]));

// GOLDEN_OFF=rule,rule measures with those rules off throughout (to compare one ranking with another).
for (const rule of (process.env.GOLDEN_OFF ?? '').split(',').filter(Boolean)) RANKING_RULES[rule as RankingRule] = false;

const gw = await startGateway({ REPOS: JSON.stringify(repos), REPO: 'switchboard', EMBEDDING_MODEL: '', LOG_LEVEL: 'warn' }, { watch: false });
const { runs, runStore, search, keywords } = gw.gateway.surfaces.search;
for (const repo of SETS) {
  const run = await runs.start(repo, false);
  await runs.settled(run.id);
  const done = await runStore.get(run.id);
  if (done?.state !== 'finished') throw new Error(`indexing ${repo}: ${done?.state} ${done?.error ?? ''}`);
  await keywords.get(repo);
}

type Figures = Record<string, { hit5: number; mrr: number }>;
async function measure(): Promise<Figures & { misses?: never }> {
  const out: Figures = {};
  for (const set of SETS) {
    const report = await runEvaluation({ golden: golden[set]!, defaultRepo: set, search: async (q, repo, k) => (await search.search(q, repo, k)).results });
    out[set] = { hit5: report.summary.hit_at_5, mrr: report.summary.mrr_at_10 };
    if (process.env.GOLDEN_MISSES) for (const q of report.questions.filter((x) => !x.hit5 || x.rank > 1)) console.log(`  [${set}] rank ${q.rank || '-'} ${q.q} -> ${q.top.slice(0, 3).join(', ')}`);
  }
  return out;
}

const f3 = (n: number) => n.toFixed(3);
const mean = (fig: Figures, sets: string[]) => sets.reduce((a, s) => a + fig[s]!.mrr, 0) / sets.length;
const all = await measure();
console.log(`\nrules as shipped (BM25 alone)\n${'set'.padEnd(14)}hit@5  MRR@10`);
for (const s of SETS) console.log(`${s.padEnd(14)}${f3(all[s]!.hit5)}  ${f3(all[s]!.mrr)}`);

if (process.env.GOLDEN_ABLATE !== '0') {
  // Each rule flipped alone from the shipped state: its effect is MRR@10 with it on minus off.
  // The keyword boost is a setting (KEYWORDS_BOOST, off at 1); "on" measures it at its former 1.3.
  const config = gw.gateway.config;
  const boostShipped = keywords.settings().boost;
  const switches: Record<string, { get(): boolean; set(on: boolean): Promise<void> }> = Object.fromEntries([
    ...(Object.keys(RANKING_RULES) as RankingRule[]).map((rule) => [rule, { get: () => RANKING_RULES[rule], set: async (on: boolean) => void (RANKING_RULES[rule] = on) }]),
    // Values tried for issue 39, each measured against the other as a switch (prose 0.7 kept, path 0.3 not).
    ['prose 0.7 (not 0.6)', { get: () => FILE_CLASS_FACTORS.prose === 0.7, set: async (on: boolean) => void ((FILE_CLASS_FACTORS as { prose: number }).prose = on ? 0.7 : 0.6) }],
    ['path 0.3 (not 0.15)', { get: () => WEIGHTS.path === 0.3, set: async (on: boolean) => void (WEIGHTS.path = on ? 0.3 : 0.15) }],
    ['keywordBoost', { get: () => keywords.settings().boost !== 1, set: async (on: boolean) => {
        await config.update({ KEYWORDS_BOOST: on ? (boostShipped === 1 ? 1.3 : boostShipped) : 1 });
        keywords.reloadSettings();
      } }],
  ]);
  const rules = Object.keys(switches);
  const shipped = Object.fromEntries(rules.map((r) => [r, switches[r]!.get()]));
  const restore = async () => {
    for (const r of rules) await switches[r]!.set(shipped[r]!);
  };
  const on: Record<string, Figures> = {};
  const off: Record<string, Figures> = {};
  for (const rule of rules) {
    await switches[rule]!.set(!shipped[rule]);
    (shipped[rule] ? off : on)[rule] = await measure();
    (shipped[rule] ? on : off)[rule] = all;
    await restore();
  }
  console.log(`\neach rule's effect on MRR@10 (on minus off), per set; * = on as shipped\n${'rule'.padEnd(22)}${SETS.map((s) => s.slice(0, 12).padStart(13)).join('')}`);
  const effect = (rule: string, s: string) => on[rule]![s]!.mrr - off[rule]![s]!.mrr;
  for (const rule of rules) console.log(`${(rule + (shipped[rule] ? ' *' : '')).padEnd(22)}${SETS.map((s) => ((effect(rule, s) >= 0 ? '+' : '') + f3(effect(rule, s))).padStart(13)).join('')}`);
  console.log(`\nthe same for hit@5\n${'rule'.padEnd(22)}${SETS.map((s) => s.slice(0, 12).padStart(13)).join('')}`);
  const effect5 = (rule: string, s: string) => on[rule]![s]!.hit5 - off[rule]![s]!.hit5;
  for (const rule of rules) console.log(`${(rule + (shipped[rule] ? ' *' : '')).padEnd(22)}${SETS.map((s) => ((effect5(rule, s) >= 0 ? '+' : '') + f3(effect5(rule, s))).padStart(13)).join('')}`);

  // A rule is on for the held-out set only when it raises the other sets' mean MRR@10.
  console.log(`\nleave one set out: rules chosen by the other sets, measured on the held-out set\n${'set'.padEnd(14)}hit@5  MRR@10  off`);
  for (const held of SETS) {
    const others = SETS.filter((s) => s !== held);
    for (const rule of rules) await switches[rule]!.set(mean(on[rule]!, others) > mean(off[rule]!, others));
    const fig = (await measure())[held]!;
    console.log(`${held.padEnd(14)}${f3(fig.hit5)}  ${f3(fig.mrr)}   ${rules.filter((r) => !switches[r]!.get()).join(', ') || '-'}`);
    await restore();
  }
}
await gw.close();
