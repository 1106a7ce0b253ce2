import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { freePort } from './gateway.js';

/** Runs git in `cwd` with a fixed identity; returns its stdout. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.test', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.test' },
  });
}

/** Writes files into a working copy and commits them on its current branch. */
export function commitFiles(work: string, files: Record<string, string>, message: string): void {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(work, rel)), { recursive: true });
    writeFileSync(path.join(work, rel), text);
  }
  git(work, 'add', '--all');
  git(work, 'commit', '--quiet', '-m', message);
}

/**
 * A bare repository `<served>/<name>` (default branch main) and an initialised working copy
 * `work` that pushed to it: `main` with `files`, tagged v1.0, and a `dev` branch adding
 * `devFiles` when given. `work` is left on main.
 */
export function seedRepository(served: string, name: string, work: string, files: Record<string, string>, devFiles?: Record<string, string>): void {
  mkdirSync(served, { recursive: true });
  mkdirSync(work, { recursive: true });
  git(served, 'init', '--quiet', '--bare', '--initial-branch=main', name);
  git(work, 'init', '--quiet', '--initial-branch=main');
  commitFiles(work, files, 'first');
  git(work, 'tag', 'v1.0');
  if (devFiles) {
    git(work, 'checkout', '--quiet', '-b', 'dev');
    commitFiles(work, devFiles, 'dev work');
    git(work, 'checkout', '--quiet', 'main');
  }
  git(work, 'push', '--quiet', path.join(served, name), 'main', 'v1.0', ...(devFiles ? ['dev'] : []));
}

export interface GitDaemon {
  /** git:// URL of a repository under the daemon's base path. */
  url(name: string): string;
  stop(): Promise<void>;
}

/**
 * A real `git daemon` serving the bare repositories under `base` on loopback. It cannot listen on
 * port 0, so a free port is picked and readiness is polled with `git ls-remote`.
 */
export async function startGitDaemon(base: string, probe: string): Promise<GitDaemon> {
  const port = await freePort();
  const child: ChildProcess = spawn('git', ['daemon', '--reuseaddr', '--export-all', '--enable=receive-pack', `--base-path=${base}`, '--listen=127.0.0.1', `--port=${port}`, base], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = (name: string) => `git://127.0.0.1:${port}/${name}`;
  const deadline = Date.now() + 15000;
  for (;;) {
    try {
      git(base, 'ls-remote', url(probe));
      break;
    } catch (err) {
      if (child.exitCode !== null || Date.now() > deadline) {
        child.kill();
        throw new Error(`git daemon did not become ready on port ${port}: ${(err as Error).message}`);
      }
      await new Promise((r) => setTimeout(r, 50)); // polling readiness, not a fixed wait for an outcome
    }
  }
  return {
    url,
    async stop() {
      if (child.exitCode === null) process.kill(child.pid!, 'SIGTERM');
      await exited;
    },
  };
}
