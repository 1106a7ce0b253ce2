import { createHash } from 'node:crypto';
import { realpath, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { ToolRefusal } from './tool-result.js';

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The bytes of a base64 document; refuses anything that is not strict base64 of a non-empty document. */
export function decodeBase64Document(text: string): Buffer {
  const compact = text.replace(/\s+/g, '');
  if (!compact || compact.length % 4 !== 0 || !BASE64.test(compact)) throw new ToolRefusal('document_base64 is not valid base64');
  return Buffer.from(compact, 'base64');
}

/** Every refusal of a file_path reads the same: whether a path outside the outbox exists is nobody's business. */
const NOT_IN_OUTBOX = 'file_path must name a file inside the outbox directory (MCP_OUTBOX_DIR)';

/** The bytes of a file inside the outbox directory; any path that resolves outside it is refused. */
export async function readOutboxFile(outboxDir: string | undefined, filePath: string): Promise<Buffer> {
  if (!outboxDir) throw new ToolRefusal('file_path needs MCP_OUTBOX_DIR to be set; send document_base64 instead');
  const root = await realpath(outboxDir);
  const inside = (p: string) => p.startsWith(root + path.sep);
  // Outside by its spelling: refused before the file system is asked anything.
  const named = path.resolve(root, filePath);
  if (!inside(named)) throw new ToolRefusal(NOT_IN_OUTBOX);
  // realpath too: a symlink inside the outbox that points out of it is outside.
  const resolved = await realpath(named).catch(() => undefined);
  if (!resolved || !inside(resolved) || !(await stat(resolved)).isFile()) throw new ToolRefusal(NOT_IN_OUTBOX);
  return readFile(resolved);
}

export function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}
