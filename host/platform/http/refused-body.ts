import type { Request, Response } from 'express';

/**
 * Answers a request refused before its body was read (413, 415, a missing key on an upload)
 * once the rest of the body has been read and discarded, with `Connection: close`. A client
 * still sending when the server closes the socket gets EPIPE or ECONNRESET instead of the
 * answer (Node's fetch, Python requests); curl stops on its own. Past `discardBytes` more, or
 * when the sender pauses for `idleMs` (a body that never ends), the answer goes out at once and
 * the connection is cut: a huge or stalled body is not waited for.
 */
export function answerAfterBody(req: Request, res: Response, discardBytes: number, send: () => void, idleMs = 1000): void {
  if (req.complete || req.readableEnded || req.destroyed) return send();
  res.setHeader('Connection', 'close');
  let discarded = 0;
  let sent = false;
  const once = () => {
    if (sent) return false;
    sent = true;
    clearTimeout(idle);
    req.off('data', count);
    req.off('end', whole);
    return true;
  };
  const answerAndCut = () => {
    req.pause();
    res.once('finish', () => req.socket?.destroy());
    send();
  };
  const idle = setTimeout(() => once() && answerAndCut(), idleMs);
  const whole = () => {
    if (once()) send();
  };
  const count = (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded <= discardBytes) {
      idle.refresh();
      return;
    }
    if (once()) answerAndCut();
  };
  req.on('data', count);
  req.once('end', whole);
  req.once('close', () => {
    // The client gave up: nobody to answer.
    if (once()) res.destroy();
  });
  req.resume();
}
