import type { PluginDefinition } from '../plugin.js';
import { FAX_STATUSES, StorageNotFoundError, type FaxSendRequest, type ProviderKind, type ProviderMap, type JudgeRequest, type AlertNotice, type InboundSinkDelivery } from '../contracts/index.js';
import type { StartPlugin, StartPluginOptions, StartedPlugin } from './start-plugin.js';

/** One check of a conformance suite; register each with your test runner. */
export interface ConformanceCase {
  name: string;
  run(): Promise<void>;
}

export interface ConformanceOptions extends StartPluginOptions {
  plugin: PluginDefinition;
}

class ConformanceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConformanceError';
  }
}

function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new ConformanceError(message);
}

/** Starts the plugin, hands the provider of `kind` to `fn`, always stops it. */
async function withProvider<K extends ProviderKind>(startPlugin: StartPlugin, kind: K, options: ConformanceOptions, fn: (p: ProviderMap[K], started: StartedPlugin) => Promise<void>): Promise<void> {
  const { plugin, ...rest } = options;
  const started = await startPlugin(plugin, rest);
  try {
    const provider = started.instance.providers[kind];
    check(provider, `the plugin provides no ${kind} provider`);
    await fn(provider as ProviderMap[K], started);
  } finally {
    await started.stop();
  }
}

const cases = (kind: ProviderKind, list: Array<[string, () => Promise<void>]>): ConformanceCase[] => list.map(([name, run]) => ({ name: `${kind} conformance: ${name}`, run }));

function storageConformance(startPlugin: StartPlugin, options: ConformanceOptions): ConformanceCase[] {
  const use = (fn: (p: ProviderMap['storage']) => Promise<void>) => () => withProvider(startPlugin, 'storage', options, fn);
  return cases('storage', [
    ['put then get returns the same bytes; exists is true', use(async (s) => {
      const data = Buffer.from(`conformance ${Date.now()}`);
      const entry = await s.put('conformance/a.bin', data);
      check(entry.key === 'conformance/a.bin' && entry.size === data.length, 'put returns the key and size');
      check((await s.get('conformance/a.bin')).equals(data), 'get returns what was put');
      check(await s.exists('conformance/a.bin'), 'exists after put');
    })],
    ['stream yields the stored bytes', use(async (s) => {
      await s.put('conformance/b.bin', Buffer.from('streamed'));
      const chunks: Buffer[] = [];
      for await (const c of await s.stream('conformance/b.bin')) chunks.push(Buffer.from(c as Buffer));
      check(Buffer.concat(chunks).toString() === 'streamed', 'stream content');
    })],
    ['put replaces an object whole', use(async (s) => {
      await s.put('conformance/c.bin', Buffer.from('first version, longer'));
      await s.put('conformance/c.bin', Buffer.from('second'));
      check((await s.get('conformance/c.bin')).toString() === 'second', 'the second put wins entirely');
    })],
    ['list filters by prefix', use(async (s) => {
      await s.put('conformance/list/x.bin', Buffer.from('x'));
      await s.put('conformance/list/y.bin', Buffer.from('y'));
      await s.put('conformance/other.bin', Buffer.from('z'));
      const keys = (await s.list('conformance/list/')).map((e) => e.key).sort();
      check(JSON.stringify(keys) === JSON.stringify(['conformance/list/x.bin', 'conformance/list/y.bin']), `list by prefix gave ${keys.join(',')}`);
    })],
    ['delete removes; a missing key is StorageNotFoundError', use(async (s) => {
      await s.put('conformance/d.bin', Buffer.from('d'));
      check((await s.delete('conformance/d.bin')) === true, 'delete reports removal');
      check((await s.delete('conformance/d.bin')) === false, 'a second delete reports nothing removed');
      check(!(await s.exists('conformance/d.bin')), 'gone after delete');
      let err: unknown;
      await s.get('conformance/d.bin').catch((e) => (err = e));
      check(err instanceof StorageNotFoundError || (err as Error)?.name === 'StorageNotFoundError', 'get of a missing key throws StorageNotFoundError');
    })],
    ['keys that escape the root are refused', use(async (s) => {
      for (const key of ['../escape.bin', '/abs.bin', 'a/../../b.bin', 'a//b']) {
        let refused = false;
        await s.put(key, Buffer.from('x')).catch(() => (refused = true));
        check(refused, `put("${key}") must be refused`);
      }
    })],
  ]);
}

/**
 * Options of the retrieval suite, for what a backend may support beyond the required members:
 * `enrichment` (contract 1.2's optional field) and `metadata` (every metadata key given at indexing
 * comes back on hits: code search's `run_id`, `indexed_at` and stale marks need it).
 */
export interface RetrievalConformanceOptions extends ConformanceOptions {
  enrichment?: boolean;
  metadata?: boolean;
}

function retrievalConformance(startPlugin: StartPlugin, options: RetrievalConformanceOptions): ConformanceCase[] {
  const { enrichment: withEnrichment, metadata: withMetadata, ...base } = options;
  const use = (fn: (p: ProviderMap['retrieval']) => Promise<void>) => () => withProvider(startPlugin, 'retrieval', base, fn);
  const enrichment: Array<[string, () => Promise<void>]> = [
    ['enrichment (1.2): a query matching only a document\'s enrichment finds it, and the hit returns the enrichment', use(async (r) => {
      await r.index('conformance-enrich', [
        { id: 'e1', text: 'function f(a, b) { return a.x < b.x ? -1 : 1; }', enrichment: 'Orders shipments by their delivery deadline.\ncomparator, sorting, deadline' },
        { id: 'e2', text: 'function g() { return 42; }' },
      ]);
      const hits = await r.search('conformance-enrich', 'delivery deadline', 5);
      check(hits[0]?.id === 'e1', `the summary's words find the document (got ${hits.map((h) => h.id).join(',') || 'nothing'})`);
      check(hits[0]?.enrichment?.includes('delivery deadline') === true, 'the hit carries its enrichment');
      const plain = await r.search('conformance-enrich', 'return', 5);
      check(plain.some((h) => h.id === 'e2' && !h.enrichment), 'a document without enrichment has none on its hit');
    })],
  ];
  const metadata: Array<[string, () => Promise<void>]> = [
    ['metadata given at indexing comes back on hits (code search\'s freshness stamps rely on it)', use(async (r) => {
      const given = { path: 'src/a.ts', run_id: 'run-1', indexed_at: '2026-01-02T03:04:05.000Z', file_size: 120, file_mtime_ms: 1767323045123.5 };
      await r.index('conformance-meta', [{ id: 'm1', text: 'lease renewal of fax jobs', metadata: given }]);
      const hit = (await r.search('conformance-meta', 'lease renewal', 5))[0];
      for (const [key, value] of Object.entries(given)) check(hit?.metadata?.[key] === value, `metadata.${key} round-trips (got ${JSON.stringify(hit?.metadata?.[key])})`);
    })],
  ];
  return cases('retrieval', [
    ...(withMetadata ? metadata : []),
    ...(withEnrichment ? enrichment : []),
    ['indexed documents are found by a query term, best first', use(async (r) => {
      const res = await r.index('conformance', [
        { id: 'd1', text: 'the fax dispatcher claims jobs with a lease' },
        { id: 'd2', text: 'storage keeps artifacts in a directory' },
      ]);
      check(res.indexed === 2, 'index reports 2 documents');
      const hits = await r.search('conformance', 'dispatcher lease', 5);
      check(hits.length >= 1 && hits[0]!.id === 'd1', 'the matching document ranks first');
      for (const h of hits) check(typeof h.score === 'number' && Number.isFinite(h.score), 'scores are numbers');
    })],
    ['topK bounds the results', use(async (r) => {
      await r.index('conformance-k', Array.from({ length: 5 }, (_, i) => ({ id: `k${i}`, text: `common word ${i}` })));
      // Five documents match, so an empty or short answer is a failure, not a bounded one.
      const hits = await r.search('conformance-k', 'common', 2);
      check(hits.length === 2, `five documents match "common": topK 2 gives exactly 2 hits (got ${hits.length})`);
      check(hits.every((h) => /^k[0-4]$/.test(h.id)), 'the hits are indexed documents');
    })],
    ['deleted documents are not found; the others still are', use(async (r) => {
      await r.index('conformance-del', [
        { id: 'gone', text: 'ephemeral document' },
        { id: 'kept', text: 'ephemeral but kept' },
      ]);
      const before = (await r.search('conformance-del', 'ephemeral', 5)).map((h) => h.id);
      check(before.includes('gone') && before.includes('kept'), `both documents match before the delete (got ${before.join(',') || 'nothing'})`);
      const res = await r.delete('conformance-del', ['gone']);
      check(res.deleted === 1, 'delete reports 1');
      const after = (await r.search('conformance-del', 'ephemeral', 5)).map((h) => h.id);
      check(!after.includes('gone'), 'not found after delete');
      check(after.includes('kept'), `a document not deleted is still found (got ${after.join(',') || 'nothing'})`);
    })],
    // Code search indexes only through write sessions (retrieval@1.1): its indexer runs in its own
    // process, replaces each changed file's chunks and commits once.
    ['write sessions: a commit publishes the sources at once, with their hashes', use(async (r) => {
      check(typeof r.openSession === 'function', 'the provider has no openSession: code search cannot index with it (retrieval@1.1 write sessions)');
      const doc = (path: string, text: string) => ({ id: `${path}#1-1`, text, metadata: { path, start_line: 1, end_line: 1, language: 'typescript' } });
      const session = await r.openSession!('conformance-session');
      await session.replaceSource('src/a.ts', 'hash-a', [doc('src/a.ts', 'export function sessionAlpha() {}')]);
      await session.replaceSource('src/b.ts', 'hash-b', [doc('src/b.ts', 'export function sessionBeta() {}')]);
      const before = await r.search('conformance-session', 'sessionalpha sessionAlpha', 5);
      check(before.length === 0, `nothing is visible before commit (got ${before.map((h) => h.id).join(',')})`);
      const stats = await session.commit();
      check(stats.documents === 2 && stats.sources === 2, `commit reports 2 documents of 2 sources (got ${JSON.stringify(stats)})`);
      const hits = await r.search('conformance-session', 'sessionAlpha', 5);
      check(hits[0]?.id === 'src/a.ts#1-1', `the committed document is found (got ${hits.map((h) => h.id).join(',') || 'nothing'})`);
      check(hits[0]?.metadata?.path === 'src/a.ts', 'a hit keeps its metadata (path)');
      const next = await r.openSession!('conformance-session');
      const sources = (await next.sources()).map((s) => `${s.path}=${s.hash}`).sort();
      await next.abort();
      check(JSON.stringify(sources) === JSON.stringify(['src/a.ts=hash-a', 'src/b.ts=hash-b']), `sources() lists the committed paths and hashes (got ${sources.join(',')})`);
    })],
    ['write sessions: replace and delete sources; abort leaves the collection as it was', use(async (r) => {
      check(typeof r.openSession === 'function', 'the provider has no openSession: code search cannot index with it (retrieval@1.1 write sessions)');
      const doc = (path: string, text: string) => ({ id: `${path}#1-1`, text, metadata: { path, start_line: 1, end_line: 1 } });
      const ids = async (q: string) => (await r.search('conformance-replace', q, 5)).map((h) => h.id);
      const first = await r.openSession!('conformance-replace');
      await first.replaceSource('a.md', 'v1', [doc('a.md', 'original wording')]);
      await first.replaceSource('b.md', 'v1', [doc('b.md', 'second original file')]);
      await first.commit();
      const aborted = await r.openSession!('conformance-replace');
      await aborted.replaceSource('a.md', 'v2', [doc('a.md', 'rewritten wording')]);
      await aborted.abort();
      check((await ids('original')).includes('a.md#1-1') && !(await ids('rewritten')).length, 'an aborted session changes nothing');
      const second = await r.openSession!('conformance-replace');
      await second.replaceSource('a.md', 'v2', [doc('a.md', 'rewritten wording')]);
      const removed = await second.deleteSources(['b.md']);
      check(removed.deleted >= 1, `deleteSources reports what it removed (got ${removed.deleted})`);
      await second.commit();
      check(JSON.stringify(await ids('rewritten')) === JSON.stringify(['a.md#1-1']), 'replaceSource replaced the path\'s documents');
      check(!(await ids('original')).length, `the old text and the deleted source are gone (got ${(await ids('original')).join(',')})`);
    })],
  ]);
}

function judgeConformance(startPlugin: StartPlugin, options: ConformanceOptions & { request?: JudgeRequest }): ConformanceCase[] {
  const use = (fn: (p: ProviderMap['judge']) => Promise<void>) => () => withProvider(startPlugin, 'judge', options, fn);
  const request: JudgeRequest = options.request ?? {
    state: 'The sky is blue.',
    questions: { q1: { type: 'noul', instructions: 'Is the statement about the sky?' }, q2: { type: 'noul', instructions: 'Is it about the sea?' } },
  };
  return cases('judge', [
    ['every question gets a probability between 0 and 1', use(async (j) => {
      const answer = await j.ask(request);
      for (const id of Object.keys(request.questions)) {
        const p = answer.answers[id];
        check(typeof p === 'number' && p >= 0 && p <= 1, `answer for ${id} is a probability (got ${p})`);
      }
      check(typeof answer.usage?.input_tokens === 'number', 'usage is reported');
    })],
    ['served, when declared, is local or network (contract 1.2)', use(async (j) => {
      check(j.served === undefined || j.served === 'local' || j.served === 'network', `served is local, network or unset (got ${String(j.served)})`);
    })],
    ['readiness, when implemented, answers whether it can answer now (contract 1.2)', use(async (j) => {
      if (!j.readiness) return;
      const r = await j.readiness();
      check(typeof r.ready === 'boolean', `ready is a boolean (got ${String(r.ready)})`);
      check(r.responding === undefined || typeof r.responding === 'boolean', 'responding is a boolean when set');
      check(r.detail === undefined || typeof r.detail === 'string', 'detail is text when set');
      check(r.hint === undefined || typeof r.hint === 'string', 'hint is text when set');
      check(r.info === undefined || (typeof r.info === 'object' && r.info !== null && !Array.isArray(r.info)), 'info is an object when set');
      if (!r.ready) check(!!r.detail, 'a judge that is not ready says why (detail)');
    })],
  ]);
}

/** A sink's delivery whose signal is already aborted settles within 5 s and is not a success. */
async function abortedDelivery<R extends { ok: boolean }>(deliver: (signal: AbortSignal) => Promise<R>, typed: (r: R) => void, hostTimeout: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'hung'>((resolve) => (timer = setTimeout(() => resolve('hung'), 5_000)));
  const settled = deliver(AbortSignal.abort()).then((r) => r, () => 'threw' as const);
  const outcome = await Promise.race([settled, deadline]).finally(() => clearTimeout(timer));
  check(outcome !== 'hung', `deliver settles within 5 s of its signal aborting (the host stops waiting at ${hostTimeout})`);
  if (outcome !== 'threw') {
    typed(outcome);
    check(!outcome.ok, 'a delivery aborted before it started is not delivered');
  }
}

function alertSinkConformance(startPlugin: StartPlugin, options: ConformanceOptions & { notice?: AlertNotice }): ConformanceCase[] {
  const use = (fn: (p: ProviderMap['alert-sink']) => Promise<void>) => () => withProvider(startPlugin, 'alert-sink', options, fn);
  const now = new Date().toISOString();
  const notice: AlertNotice = options.notice ?? {
    id: 'conformance:1',
    event_id: `conformance:1/firing:${Date.now()}`,
    type: 'conformance',
    category: 'test',
    severity: 'warning',
    status: 'firing',
    title: 'conformance alert',
    labels: { suite: 'conformance' },
    starts_at: now,
    ends_at: null,
    sent_at: now,
    context: {},
  };
  const typed = (d: Awaited<ReturnType<ProviderMap['alert-sink']['deliver']>>) => {
    check(typeof d.ok === 'boolean', 'ok is a boolean');
    check(d.permanent === undefined || typeof d.permanent === 'boolean', 'permanent is a boolean when set');
    check(d.status === undefined || Number.isInteger(d.status), 'status is an HTTP status when set');
    check(d.ok || typeof d.detail === 'string', 'a failure says why (detail)');
  };
  return cases('alert-sink', [
    ['deliver takes the stored notice and answers ok or a typed failure', use(async (a) => typed(await a.deliver(notice)))],
    ['a resolved notice is delivered like a firing one', use(async (a) => typed(await a.deliver({ ...notice, event_id: `${notice.id}/resolved:${Date.now()}`, status: 'resolved', ends_at: new Date().toISOString() })))],
    ['an aborted signal ends the delivery: a failure (or a throw), never a success or a hang', use((a) => abortedDelivery((signal) => a.deliver(notice, signal), typed, 'ALERT_WEBHOOK_TIMEOUT'))],
  ]);
}

function inboundSinkConformance(startPlugin: StartPlugin, options: ConformanceOptions & { delivery?: InboundSinkDelivery }): ConformanceCase[] {
  const use = (fn: (p: ProviderMap['inbound-sink']) => Promise<void>) => () => withProvider(startPlugin, 'inbound-sink', options, fn);
  const fax = { id: 'conformance-fax', mailbox: 'conformance', from: '+15555550100', to: '+15555550199', pages: 1, received_at: new Date().toISOString() };
  const link: InboundSinkDelivery = options.delivery ?? {
    delivery_id: `conformance:${Date.now()}`,
    fax,
    recipients: ['conformance@example.test'],
    document: { mode: 'link', filename: 'fax.pdf', url: 'https://gateway.example.test/inbound/conformance-fax/pdf?token=t', expires_at: new Date(Date.now() + 3_600_000).toISOString() },
  };
  const typed = (r: Awaited<ReturnType<ProviderMap['inbound-sink']['deliver']>>) => {
    check(typeof r.ok === 'boolean', 'ok is a boolean');
    check(r.permanent === undefined || typeof r.permanent === 'boolean', 'permanent is a boolean when set');
    check(r.ok || typeof r.detail === 'string', 'a failure says why (detail)');
  };
  return cases('inbound-sink', [
    ['deliver takes a linked document and answers ok or a typed failure', use(async (p) => typed(await p.deliver(link)))],
    ['deliver takes an attached PDF and answers ok or a typed failure', use(async (p) => typed(await p.deliver({ ...link, delivery_id: `${link.delivery_id}/attach`, document: { mode: 'attach', filename: 'fax.pdf', pdf: Buffer.from('%PDF-1.4 conformance') } })))],
    ['an aborted signal ends the delivery: a failure (or a throw), never a success or a hang', use((p) => abortedDelivery((signal) => p.deliver(link, signal), typed, 'INBOUND_SINK_TIMEOUT_SECONDS'))],
  ]);
}

function faxConformance(startPlugin: StartPlugin, options: ConformanceOptions & { sample: () => FaxSendRequest | Promise<FaxSendRequest> }): ConformanceCase[] {
  const use = (fn: (p: ProviderMap['fax']) => Promise<void>) => () => withProvider(startPlugin, 'fax', options, fn);
  return cases('fax', [
    ['send returns a provider id and one of our statuses', use(async (f) => {
      const result = await f.send(await options.sample());
      check(typeof result.providerSid === 'string' && result.providerSid.length > 0, 'providerSid is set');
      check((FAX_STATUSES as readonly string[]).includes(result.status), `status ${result.status} is one of ${FAX_STATUSES.join(', ')}`);
    })],
    ['status by provider id answers one of our statuses', use(async (f) => {
      const req = await options.sample();
      const sent = await f.send(req);
      const status = await f.status({ jobId: req.jobId, to: req.to, providerSid: sent.providerSid, sentAt: new Date() });
      // The provider just accepted this fax: "no record of it" would be a wrong answer.
      check(status !== null, 'a fax the provider accepted is known to it');
      check((FAX_STATUSES as readonly string[]).includes(status.status), `status ${status.status} is one of ${FAX_STATUSES.join(', ')}`);
    })],
  ]);
}

/** Every kind's suite, starting plugins with `startPlugin` (the kit binds the host's). */
export function conformanceSuites(startPlugin: StartPlugin) {
  return {
    fax: (options: ConformanceOptions & { sample: () => FaxSendRequest | Promise<FaxSendRequest> }) => faxConformance(startPlugin, options),
    storage: (options: ConformanceOptions) => storageConformance(startPlugin, options),
    judge: (options: ConformanceOptions & { request?: JudgeRequest }) => judgeConformance(startPlugin, options),
    retrieval: (options: RetrievalConformanceOptions) => retrievalConformance(startPlugin, options),
    'alert-sink': (options: ConformanceOptions & { notice?: AlertNotice }) => alertSinkConformance(startPlugin, options),
    'inbound-sink': (options: ConformanceOptions & { delivery?: InboundSinkDelivery }) => inboundSinkConformance(startPlugin, options),
  };
}

export type ConformanceSuites = ReturnType<typeof conformanceSuites>;
