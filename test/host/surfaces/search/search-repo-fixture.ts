import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { json, tempDir, until } from '../../../support/gateway.js';

/** Writes a file of a test repository. */
export function writeRepoFile(root: string, rel: string, content: string): void {
  const file = path.join(root, rel);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
}

/** A small repository with code, prose and an ignored file. */
export function smallRepo(): string {
  const root = tempDir('search-repo-');
  writeRepoFile(root, '.gitignore', 'secrets/\n');
  writeRepoFile(
    root,
    'core/kernel/reload-queue.ts',
    [
      '/** One serial reload queue: requests that arrive while a reload runs are coalesced into one. */',
      'export class ReloadQueue {',
      '  private pending = false;',
      '  request(): void {',
      '    // coalesce: a second request while one is pending does nothing',
      '    if (this.pending) return;',
      '    this.pending = true;',
      '  }',
      '}',
      '',
    ].join('\n'),
  );
  writeRepoFile(
    root,
    'src/http/header-parser.ts',
    ['export function parseHttpHeader(line: string): [string, string] {', "  const at = line.indexOf(':');", '  return [line.slice(0, at), line.slice(at + 1).trim()];', '}', ''].join('\n'),
  );
  writeRepoFile(root, 'src/phone.py', 'def mask_phone_number(number):\n    """Masks every digit but the last four."""\n    return "*" * (len(number) - 4) + number[-4:]\n');
  writeRepoFile(root, 'docs/guide.md', '# Guide\n\n## Reload\nThe reload queue is described in the kernel.\n');
  writeRepoFile(root, 'secrets/token.ts', 'export const ignoredSecretToken = "never indexed";\n');
  return root;
}

/** A repository large enough that a run is still going when a test acts on it. */
export function bigRepo(files = 600): string {
  const root = tempDir('search-big-');
  for (let i = 0; i < files; i++) {
    const body = Array.from({ length: 2 }, (_, k) => `export function handler${i}_${k}(input: number): number {\n  return input * ${k} + ${i};\n}`).join('\n');
    writeRepoFile(root, `src/part${i % 50}/module${i}.ts`, body);
  }
  return root;
}

export async function statusOf(url: string, repo: string): Promise<any> {
  return json(await fetch(`${url}/api/index/status?repo=${encodeURIComponent(repo)}`));
}

/** Starts a run and returns its 202 body. */
export async function startRun(url: string, body: Record<string, unknown> = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(`${url}/api/index/start`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: await json(res) };
}

/** Waits until the latest run of `repo` has finished_at, and returns the status. */
export async function waitForRun(url: string, repo: string, timeoutMs = 60_000): Promise<any> {
  return until(async () => {
    const s = await statusOf(url, repo);
    return s.metadata.finished_at ? s : undefined;
  }, timeoutMs, 50);
}

export async function search(url: string, params: Record<string, string>): Promise<{ status: number; body: any }> {
  const res = await fetch(`${url}/api/search?${new URLSearchParams(params)}`);
  return { status: res.status, body: await json(res) };
}
