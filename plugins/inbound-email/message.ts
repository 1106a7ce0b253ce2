import type { InboundSinkDelivery } from 'switchboard/sdk';

/** The email of one inbound fax: the PDF attached, or a link to it (the body says until when). */
export function faxMessage(delivery: InboundSinkDelivery): { subject: string; text: string; attachments: Array<{ filename: string; content: Buffer; contentType: string }> } {
  const { fax, document } = delivery;
  const subject = `Fax from ${fax.from ?? 'an unknown number'} (${fax.pages} ${fax.pages === 1 ? 'page' : 'pages'}, mailbox ${fax.mailbox})`;
  const lines = [`A fax arrived in mailbox ${fax.mailbox}.`, '', `From: ${fax.from ?? 'unknown'}`, `To: ${fax.to ?? 'unknown'}`, `Pages: ${fax.pages}`, `Received: ${fax.received_at}`, `Fax id: ${fax.id}`, ''];
  if (document.mode === 'attach') {
    lines.push(`The fax is attached (${document.filename}).`);
    return { subject, text: lines.join('\n'), attachments: [{ filename: document.filename, content: document.pdf, contentType: 'application/pdf' }] };
  }
  lines.push(`Download the fax (PDF) until ${document.expires_at}:`, document.url, '', 'Anyone holding this link can read the fax until then; do not forward this message.');
  return { subject, text: lines.join('\n'), attachments: [] };
}
