import { maskNumbers } from '../../../../core/sdk/index.js';
import { renderPdf } from '../documents/pdfkit-buffer.js';
import { PAPER_POINTS, type Paper } from '../documents/paper.js';
import { maskPhone } from '../../../platform/logging/text-masking.js';
import type { FaxJobAttemptRow } from './job-attempts.js';
import type { FaxJobRow } from './job-store.js';

/** Attempts listed on the one page; more are summed up in a line. */
const MAX_ATTEMPT_LINES = 12;
const MARGIN = 54;

/** Cuts `text` to `max` characters, marking the cut; the report must stay on one page. */
const fit = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 3)}...` : text);

/**
 * The sender's record of a finished fax: one page with the outcome, pages, every attempt and its
 * times, the number masked (never in full: the report leaves the system), the backend and the
 * SHA-256 of the document sent.
 */
export async function renderTransmissionReport(job: FaxJobRow, attempts: FaxJobAttemptRow[], documentSha256: string | null, paper: Paper, now = new Date()): Promise<Buffer> {
  const { width, height } = PAPER_POINTS[paper];
  const facts: Array<[string, string]> = [
    ['Job', job.id],
    ['Outcome', job.status],
    ...(job.error && job.status !== 'SUCCESS' ? [['Error', fit(maskNumbers(job.error), 70)] as [string, string]] : []),
    ['To', maskPhone(job.to_number)],
    ['Pages', `${job.pages ?? 'unknown'}${job.cover_page ? ' (cover page included)' : ''}`],
    ['Backend', job.backend],
    ...(job.provider_sid ? [['Provider id', fit(job.provider_sid, 70)] as [string, string]] : []),
    ['Submitted', job.created_at],
    ['Finished', job.finished_at ?? '-'],
    ['Document SHA-256', documentSha256 ?? 'unknown (the document was removed by cleanup)'],
  ];
  return renderPdf({ size: [width, height], margin: MARGIN, info: { Title: `Fax transmission report ${job.id}` } }, (doc) => {
    doc.addPage({ size: [width, height], margin: MARGIN });
    doc.font('Helvetica-Bold').fontSize(16).text('Fax transmission report', MARGIN, MARGIN, { lineBreak: false });
    let y = MARGIN + 32;
    doc.fontSize(9);
    for (const [label, value] of facts) {
      doc.font('Helvetica-Bold').text(label, MARGIN, y, { lineBreak: false });
      doc.font('Courier').text(value, MARGIN + 110, y, { lineBreak: false });
      y += 14;
    }
    y += 12;
    doc.font('Helvetica-Bold').fontSize(11).text(`Attempts (${attempts.length})`, MARGIN, y, { lineBreak: false });
    y += 18;
    doc.font('Courier').fontSize(8);
    if (!attempts.length) doc.text('none: the job was not sent', MARGIN, y, { lineBreak: false });
    for (const a of attempts.slice(0, MAX_ATTEMPT_LINES)) {
      const outcome = [a.outcome ?? 'under way', a.line_failure].filter(Boolean).join(' / ');
      doc.text(`#${a.attempt}  ${a.started_at} -> ${a.ended_at ?? '-'}  ${outcome}`, MARGIN, y, { lineBreak: false });
      y += 11;
      if (a.error) {
        doc.text(`    ${fit(maskNumbers(a.error), 95)}`, MARGIN, y, { lineBreak: false });
        y += 11;
      }
    }
    if (attempts.length > MAX_ATTEMPT_LINES) doc.text(`... and ${attempts.length - MAX_ATTEMPT_LINES} more`, MARGIN, y, { lineBreak: false });
    doc.font('Helvetica').fontSize(7).text(`Generated ${now.toISOString()} by Switchboard`, MARGIN, height - MARGIN, { lineBreak: false });
  });
}
