import { envOnly } from '../../../core/sdk/settings.js';
import { z } from 'zod';
import { backendId, integer, decimal, flag, pluginId, emptyAsUnset } from '../../platform/config/model/field-kinds.js';
import type { PlatformConfig } from '../../platform/config/model/index.js';
import type { ConfigRegistry } from '../../platform/config/registry.js';
import { settingsSection, type SectionValues } from '../../platform/config/settings-section.js';
import { ModelsKeys } from './answers/answer-settings.js';
import { EditorKeys } from './editor/editor-settings.js';

import { REPO_NAME } from '../../platform/ports/code-search.js';

export { REPO_NAME };

// REPOS arrives as JSON text from the environment (an object when a test passes one).
const jsonObjectFromText = (value: unknown) => {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
};

/** Configuration keys of code search: repositories, retrieval, chunking and keywords. */
export const SearchKeys = {
  // Retrieval
  REPO: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'must be a repository name (letters, digits, ".", "_", "-")')
    .default('switchboard')
    .describe('Repository searched and indexed when a request names none; also names out/<REPO>/.'),
  REPOS: envOnly(z
    .preprocess(
      jsonObjectFromText,
      z.record(
        z.string().regex(REPO_NAME, 'repository names are letters, digits, ".", "_", "-"').refine((n) => !n.includes('..'), 'repository names cannot contain ".."'),
        z.string().min(1, 'a repository directory cannot be empty'),
      ),
    )
    .default({})
    .describe(
      'Repositories that can be indexed and searched: a JSON object mapping a name to a directory, e.g. {"billing":"/srv/billing"}. ' +
        'Empty (the default) maps "switchboard" to the gateway\'s own package root. Environment (or the env file) only: it names server paths, so the API refuses it and the JSON config file cannot set it.',
    )),
  GIT_FETCH_MINUTES: decimal(0).default(0).describe('Minutes between fetches of every git repository added over the API (each fetch re-indexes the revisions whose commit moved; in a cluster one instance at a time fetches, lease `search.git-fetch`, and the others follow the commits it found); 0 fetches only on demand (POST /api/repos/{name}/fetch).'),
  GIT_SYNC_SECONDS: decimal(0.1, 3600).default(30).describe('Seconds between reads of the git repository list (the `git_repositories` table, shared by a cluster): a repository added, fetched or removed through another instance is cloned, fetched or dropped here within this time.'),
  GIT_TIMEOUT_SECONDS: integer(1, 3600).default(300).describe('Longest a git clone, fetch or export may take before it is stopped.'),
  RETRIEVAL_BACKEND: backendId('retrieval', 'Plugin id of the retrieval provider used by search, indexing and answers.'),
  INDEX_MAX_FILE_BYTES: integer(1).default(1048576).describe('Files larger than this many bytes are skipped by indexing.'),
  FINAL_K: integer(1, 1000).default(10).describe('Results returned by search when top_k is not given.'),
  LANGGRAPH_FINAL_K: integer(1, 1000).default(20).describe('Chunks the answer graph retrieves for a RAG answer.'),
  RRF_K_DIV: integer(1).default(60).describe('k of reciprocal rank fusion: score = weight / (k + rank).'),
  BM25_WEIGHT: decimal(0, 1).default(0.3).describe('Weight of the sparse (BM25) ranking in hybrid fusion.'),
  VECTOR_WEIGHT: decimal(0, 1).default(0.7).describe('Weight of the dense (vector) ranking in hybrid fusion.'),
  TOPK_SPARSE: integer(1).default(75).describe('Candidates taken from the sparse index before fusion.'),
  TOPK_DENSE: integer(1).default(75).describe('Candidates taken from the dense index before fusion.'),
  CHUNK_SIZE: integer(1).default(1000).describe('Characters per indexed chunk.'),
  CHUNK_OVERLAP: integer(0).default(200).describe('Characters shared by consecutive chunks.'),
  ENRICH_CODE_CHUNKS: flag().default(false).describe('Default of `enrich` for indexing runs: with GEN_MODEL (and EMBEDDING_MODEL) set, an LLM summary and keywords of every chunk, indexed as their own field and shown to the answer model.'),
  // Evaluation
  EVAL_MAX_QUESTIONS: integer(1, 10000).default(2000).describe('Most golden-set entries one POST /api/eval/run or /api/eval/runs may carry; more answer 413 (the CLI `switchboard eval` has no such cap).'),
  EVAL_SYNC_MAX_QUESTIONS: integer(0, 10000).default(200).describe('POST /api/eval/run answers the report at once (200) up to this many selected questions; beyond it the run goes to the background (202, read it with GET /api/eval/runs/{id}).'),
  EVAL_MAX_RUNNING: integer(1, 100).default(2).describe('Evaluation runs one gateway runs at the same time; one more answers 429 evaluation_runs_busy.'),
  // Keywords
  KEYWORDS_MAX_PER_REPO: integer(0).default(50).describe('Discriminative keywords kept per repository.'),
  KEYWORDS_MIN_FREQ: integer(1).default(3).describe('Files a term must appear in to become a keyword.'),
  KEYWORDS_BOOST: decimal(0).default(1).describe('Score multiplier of a result holding a keyword the query names (1: off; the golden sets rank better without it).'),
  KEYWORDS_REFRESH_HOURS: decimal(0).default(24).describe('Hours before cached keywords are regenerated.'),
  ALERT_EVAL_DROP: decimal(0, 1).default(0.05).describe('Evaluation regression alert (warning): fires when MRR@10, nDCG@10 or MAP of the latest run of a named evaluation is this much below its saved baseline.'),
};

/** Every configuration key of code search: repositories, indexing and retrieval, answers and their models, the editor, the evaluation alert. */
export const SEARCH_SETTINGS = settingsSection('search', { ...SearchKeys, ...ModelsKeys, ...EditorKeys });

/** The configuration as the code-search surface reads it: the platform's keys and its own. */
export type SearchConfig = ConfigRegistry<PlatformConfig & SectionValues<typeof SEARCH_SETTINGS>>;
