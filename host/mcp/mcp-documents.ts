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

/** The bytes of a file inside the outbox directory; any path that resolves outside it is refused. */
export async function readOutboxFile(outboxDir: string | undefined, filePath: string): Promise<Buffer> {
  if (!outboxDir) throw new ToolRefusal('file_path needs MCP_OUTBOX_DIR to be set; send document_base64 instead');
  const root = await realpath(outboxDir);
  let resolved: string;
  try {
    resolved = await realpath(path.resolve(root, filePath));
  } catch {
    throw new ToolRefusal('no such file in the outbox directory');
  }
  // realpath first: a symlink inside the outbox that points out of it is outside too.
  if (!resolved.startsWith(root + path.sep)) throw new ToolRefusal('file_path is outside the outbox directory (MCP_OUTBOX_DIR)');
  if (!(await stat(resolved)).isFile()) throw new ToolRefusal('file_path is not a file');
  return readFile(resolved);
}

export function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}
