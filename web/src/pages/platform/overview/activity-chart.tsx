import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { ApiResponse } from '../../../api.js';
import { Table, type Column } from '../../../components/table.js';

type ActivityBucket = ApiResponse<'/admin/fax-activity', 'get'>['buckets'][number];

const SERIES: { key: 'sent' | 'failed' | 'queued'; label: string; color: string }[] = [
  { key: 'sent', label: 'Sent', color: '#0f6b2f' },
  { key: 'failed', label: 'Failed', color: '#a4161a' },
  { key: 'queued', label: 'Queued', color: '#8a5300' },
];

const COLUMNS: Column<ActivityBucket>[] = [
  { header: 'Hour', cell: (b) => new Date(b.start).toLocaleString([], { dateStyle: 'short', timeStyle: 'short' }) },
  ...SERIES.map((s) => ({ header: s.label, cell: (b: ActivityBucket) => b[s.key] })),
];

/** Fax jobs per hour as a small uPlot chart, with the same numbers as a table for screen readers. */
export function ActivityChart({ buckets }: { buckets: ActivityBucket[] }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const xs = buckets.map((b) => Date.parse(b.start) / 1000);
    const data: uPlot.AlignedData = [xs, ...SERIES.map((s) => buckets.map((b) => b[s.key]))];
    const width = Math.max(320, Math.min(el.clientWidth || 640, 900));
    const plot = new uPlot(
      {
        width,
        height: 220,
        scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(4, Math.ceil(max * 1.15))] } },
        axes: [{}, { label: 'jobs per hour', size: 56 }],
        series: [{ label: 'Hour' }, ...SERIES.map((s) => ({ label: s.label, stroke: s.color, width: 2, points: { show: true, size: 5 } }))],
        cursor: { drag: { x: false, y: false } },
      },
      data,
      el,
    );
    return () => plot.destroy();
  }, [buckets]);
  const totals = SERIES.map((s) => `${buckets.reduce((n, b) => n + b[s.key], 0)} ${s.label.toLowerCase()}`).join(', ');
  const busy = buckets.filter((b) => b.sent + b.failed + b.queued > 0);
  return (
    <figure class="chart">
      <div ref={box} role="img" aria-label={`Fax jobs per hour over the last ${buckets.length} hours: ${totals}.`} />
      <figcaption class="hint">Last {buckets.length} hours (local time): {totals}.</figcaption>
      <details>
        <summary>The numbers as a table</summary>
        <Table rows={busy} columns={COLUMNS} rowKey={(b) => b.start} caption="Fax jobs per hour" empty="No fax jobs in this window." />
      </details>
    </figure>
  );
}
