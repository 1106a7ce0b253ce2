import { readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { checkInternalSecret, parseWebhookJson, WebhookRejectedError, z, type FaxProvider } from 'switchboard/sdk';

/** What the dialplan posts after ReceiveFAX: `{tiff_path, to_number, from_number, faxstatus, faxpages, uniqueid}`. */
const InboundHook = z.object({
  tiff_path: z.string().min(1).max(4096),
  to_number: z.string().min(1).max(40),
  from_number: z.string().max(40).optional(),
  faxstatus: z.string().max(50).optional(),
  faxpages: z.coerce.number().int().min(0).optional(),
  uniqueid: z.string().min(1).max(100),
});

/**
 * Asterisk's inbound hook: X-Internal-Secret against inboundSecret; the TIFF is read from the
 * spool only (its real path, symlinks resolved, must lie inside spoolDir's real path).
 */
export function sipInboundHook(settings: { inboundSecret?: string | undefined; spoolDir?: string | undefined }): Required<Pick<FaxProvider, 'verifyWebhook' | 'parseInbound'>> {
  return {
    verifyWebhook: (request) => checkInternalSecret(request, settings.inboundSecret, 'inboundSecret (PBX_INBOUND_SECRET)'),
    async parseInbound(request) {
      const body = parseWebhookJson(request, InboundHook);
      if (!settings.spoolDir) throw new WebhookRejectedError(503, 'no_spool', 'spoolDir (PBX_SPOOL_DIR) is not set');
      const file = await spoolFile(settings.spoolDir, body.tiff_path);
      return {
        providerId: body.uniqueid,
        from: body.from_number,
        to: body.to_number,
        status: body.faxstatus ?? 'received',
        pages: body.faxpages,
        document: {
          async read(maxBytes) {
            const info = await stat(file);
            if (info.size > maxBytes) throw new WebhookRejectedError(413, 'too_large', `tiff_path: document over ${maxBytes} bytes`);
            return readFile(file);
          },
        },
      };
    },
  };
}

/** The real path of `given`, refused unless it is a file inside the spool directory. */
async function spoolFile(spoolDir: string, given: string): Promise<string> {
  let spool: string;
  let file: string;
  try {
    spool = await realpath(spoolDir);
  } catch {
    throw new WebhookRejectedError(503, 'no_spool', 'spoolDir (PBX_SPOOL_DIR) does not exist');
  }
  try {
    file = await realpath(path.resolve(spool, given));
  } catch {
    throw new WebhookRejectedError(400, 'no_file', 'tiff_path: no such file');
  }
  if (!file.startsWith(spool + path.sep)) throw new WebhookRejectedError(403, 'outside_spool', 'tiff_path: outside the spool directory');
  if (!(await stat(file)).isFile()) throw new WebhookRejectedError(400, 'no_file', 'tiff_path: not a file');
  return file;
}
