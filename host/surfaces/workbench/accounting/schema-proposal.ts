import type { OutboundGuard } from '../../../../core/kernel/egress.js';
import { llmGatewayEndpoint } from '../../../platform/llm/gateway-endpoint.js';
import type { WorkbenchConfig } from '../workbench-settings.js';
import { LlmGatewayClient, runIdentity } from '../../../platform/llm/gateway-client.js';
import type { CodeSearchPort, RepositoryRef } from '../../../platform/ports/code-search.js';
import { tokensOf } from '../../../platform/llm/accounting/estimate.js';
import type { RunAccounting, RunRecordView } from '../../../platform/llm/accounting/run-accounting.js';

/** The kind of a proposal's accounting record (GET .../runs/latest?run_kind=schema_proposal). */
const SCHEMA_PROPOSAL = 'schema_proposal';

/** Paths shown to the model: enough to see the corpus's shape, small enough for one call. */
const MAX_PATHS = 200;

/**
 * The schema_proposal lane: one chat call proposing an entity/relation schema for a corpus from
 * its file layout. The run is saved whatever happens: a failed proposal is a run too.
 */
export class SchemaProposals {
  private readonly running = new Map<string, Promise<RunRecordView>>();

  constructor(private readonly deps: { accounting: RunAccounting; config: WorkbenchConfig; codeSearch: () => CodeSearchPort; outbound?: OutboundGuard }) {}

  /** A proposal of the corpus, or the one already being made: concurrent callers share one run and one LLM call. */
  proposeOrJoin(repo: RepositoryRef): { view: Promise<RunRecordView>; joined: boolean } {
    const current = this.running.get(repo.name);
    if (current) return { view: current, joined: true };
    const view = this.propose(repo).finally(() => this.running.delete(repo.name));
    this.running.set(repo.name, view);
    return { view, joined: false };
  }

  private async propose(repo: RepositoryRef): Promise<RunRecordView> {
    const { config, accounting } = this.deps;
    const model = config.get('GEN_MODEL');
    const paths = await this.deps.codeSearch().listFiles(repo, MAX_PATHS);
    const prompt = `Corpus "${repo.name}" holds these files:\n${paths.join('\n')}\n\nPropose an entity/relation schema for a knowledge graph of this corpus. Answer JSON: {"entities":[{"name","description"}],"relations":[{"name","from","to"}]}.`;
    if (!model) {
      const runId = await accounting.open({ corpusId: repo.name, runKind: SCHEMA_PROPOSAL, lanes: {}, notApplicable: { schema_proposal: 'GEN_MODEL is unset: no proposal call' } });
      await accounting.close(runId, 'failed', 'GEN_MODEL is unset', { error: 'GEN_MODEL is unset: set a model to propose a schema' });
      return accounting.view(repo.name, runId);
    }
    const runId = await accounting.open({ corpusId: repo.name, runKind: SCHEMA_PROPOSAL, lanes: { schema_proposal: { model, requests: 1, input_tokens: tokensOf(prompt.length), output_tokens: 800 } } });
    const client = new LlmGatewayClient({ ...llmGatewayEndpoint(config), ...(this.deps.outbound ? { guard: this.deps.outbound } : {}), attempts: 1 });
    try {
      const answer = await client.chat({ model, messages: [{ role: 'user', content: prompt }], temperature: 0, maxTokens: 800, identity: runIdentity(runId, repo.name, 'schema_proposal', accounting.census(runId)), timeoutMs: config.get('GEN_TIMEOUT') * 1000 });
      await accounting.close(runId, 'finished', null, { proposal: parseProposal(answer.text), text: answer.text.slice(0, 20_000) });
    } catch (err) {
      const message = (err as Error).message;
      await accounting.close(runId, 'failed', message, { error: message });
    }
    return accounting.view(repo.name, runId);
  }
}

function parseProposal(text: string): unknown {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end <= start) return null;
  try {
    return JSON.parse(text.slice(start, end + 1));
  } catch {
    return null;
  }
}
