import type { IndexRun } from './index-run-store.js';

/**
 * The ordered, human-readable lines of GET /api/index/status, written from the run's row so
 * they survive a restart: started, repository, enrichment, files, chunks, vectors, outcome.
 */
export function statusLines(run: IndexRun, embeddingModel: string | undefined): string[] {
  const lines = ['Indexing started...', `Indexing repository: ${run.repo}`];
  if (run.enrich) lines.push('Enriching chunks with summaries and keywords... (ENRICH_CODE_CHUNKS=true)');
  if (run.kind === 'full') lines.push('Full index (the repository had no index yet)');
  else if (run.kind === 'incremental') lines.push('Incremental index: only files whose content changed are re-chunked');
  else if (run.kind === 'unchanged') lines.push('Nothing changed since the last run: every file has the size, mtime and inode it was indexed with; none was read');
  lines.push(`Files: ${run.files_seen} seen, ${run.files_changed} changed, ${run.files_removed} removed, ${run.files_skipped} skipped`);
  lines.push(`Chunks: ${run.chunks} written`);
  lines.push(embeddingModel ? `Vectors: ${run.vectors} stored (${embeddingModel})` : 'Vectors: none (EMBEDDING_MODEL is not set; BM25 alone answers)');
  if (run.state === 'finished') lines.push(`Indexing completed in ${seconds(run)} s`);
  else if (run.state === 'failed') lines.push(`Indexing failed: ${run.error ?? 'unknown reason'}`);
  else if (run.state === 'interrupted') lines.push(`Indexing interrupted: ${run.error ?? 'the gateway stopped'}; start it again`);
  else lines.push('Indexing in progress...');
  return lines;
}

function seconds(run: IndexRun): string {
  const ms = run.finished_at ? Date.parse(run.finished_at) - Date.parse(run.started_at) : 0;
  return (ms / 1000).toFixed(1);
}
