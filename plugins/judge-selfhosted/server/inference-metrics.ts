/** The content type of the Prometheus text format this server's GET /metrics answers in. */
export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

const BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5];

interface Series {
  labels: string;
  buckets: number[];
  sum: number;
  count: number;
}

/**
 * The judge server's two metrics: `selfhosted_inference_seconds` (a histogram by checkpoint and
 * outcome) and `selfhosted_checkpoint_resident` (a gauge by checkpoint), written in the
 * Prometheus text format by hand so the server needs nothing but node and its model runtime.
 */
export class InferenceMetrics {
  private readonly inference = new Map<string, Series>();
  private readonly resident = new Map<string, number>();

  constructor(checkpoints: readonly string[]) {
    for (const name of checkpoints) this.resident.set(name, 0);
  }

  observe(checkpoint: string, outcome: 'ok' | 'error', seconds: number): void {
    const labels = `checkpoint="${checkpoint}",outcome="${outcome}"`;
    let series = this.inference.get(labels);
    if (!series) this.inference.set(labels, (series = { labels, buckets: BUCKETS.map(() => 0), sum: 0, count: 0 }));
    BUCKETS.forEach((le, i) => {
      if (seconds <= le) series.buckets[i]!++;
    });
    series.sum += seconds;
    series.count++;
  }

  setResident(checkpoint: string, resident: boolean): void {
    this.resident.set(checkpoint, resident ? 1 : 0);
  }

  text(): string {
    const lines = ['# HELP selfhosted_inference_seconds Time to answer one /v1/systemone request on the inference worker.', '# TYPE selfhosted_inference_seconds histogram'];
    for (const s of this.inference.values()) {
      BUCKETS.forEach((le, i) => lines.push(`selfhosted_inference_seconds_bucket{le="${le}",${s.labels}} ${s.buckets[i]}`));
      lines.push(`selfhosted_inference_seconds_bucket{le="+Inf",${s.labels}} ${s.count}`, `selfhosted_inference_seconds_sum{${s.labels}} ${s.sum}`, `selfhosted_inference_seconds_count{${s.labels}} ${s.count}`);
    }
    lines.push('# HELP selfhosted_checkpoint_resident 1 for the checkpoint resident in memory, 0 for the others.', '# TYPE selfhosted_checkpoint_resident gauge');
    for (const [name, value] of this.resident) lines.push(`selfhosted_checkpoint_resident{checkpoint="${name}"} ${value}`);
    return `${lines.join('\n')}\n`;
  }
}
