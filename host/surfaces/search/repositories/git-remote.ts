import { execFile } from 'node:child_process';
import { lookup } from 'node:dns/promises';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { isIP } from 'node:net';
import { refusedAddressReason } from '../../../../core/kernel/outbound-address.js';

/** Transports git may use for a remote: `ext::` and other helpers that run commands are refused. */
const ALLOWED_PROTOCOLS = 'file:git:http:https:ssh';

/** A remote as configured: https, ssh (URL or scp-like `user@host:path`), git://, file:// or an absolute path. */
export interface GitRemoteSource {
  url: string;
  /** Branch and tag names or globs (`*` within a segment, `**` across segments) to index. */
  revs: string[];
  /** The secret sent to the origin only, as HTTP basic auth (`user:token`) or a bearer token. */
  credential?: string;
}

/** A revision to index: a branch or tag name and the commit it points at. */
export interface GitRevision {
  name: string;
  kind: 'branch' | 'tag';
  commit: string;
}

export class GitRemoteError extends Error {}

/** The host a remote connects to, or undefined for a local one (a path or file://). */
export function remoteHost(url: string): string | undefined {
  if (path.isAbsolute(url) || url.startsWith('file://')) return undefined;
  const scp = /^(?:[^@/:]+@)?([^/:]+):(?!\/\/)/.exec(url);
  if (scp && !/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) return scp[1];
  try {
    return new URL(url).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return undefined;
  }
}

/** Refuses a URL git should not be handed: an option-like or unknown transport. */
export function checkRemoteUrl(url: string): void {
  if (url.startsWith('-') || /[\s\0]/.test(url)) throw new GitRemoteError(`"${url.slice(0, 100)}" is not a git remote URL`);
  if (path.isAbsolute(url)) return;
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1]?.toLowerCase();
  if (scheme ? !['https', 'http', 'ssh', 'git', 'file'].includes(scheme) : !remoteHost(url)) {
    throw new GitRemoteError(`"${url.slice(0, 100)}" is not a git remote (https, ssh, git, file:// or an absolute path)`);
  }
}

/**
 * The outbound rule for a remote's host: allowed by name, else every address it resolves to must
 * be public (as OutboundGuard does for HTTP). git resolves again itself; the allow-list is the guard.
 */
export async function assertRemoteAllowed(url: string, allowHosts: readonly string[]): Promise<void> {
  const host = remoteHost(url);
  if (!host || allowHosts.some((h) => h.toLowerCase().replace(/^\[|\]$/g, '') === host.toLowerCase())) return;
  const addresses = isIP(host) ? [host] : (await lookup(host, { all: true }).catch(() => [])).map((a) => a.address);
  if (!addresses.length) throw new GitRemoteError(`the host ${host} of the remote does not resolve`);
  for (const address of addresses) {
    const reason = refusedAddressReason(address);
    if (reason) throw new GitRemoteError(`the remote's host ${host} (${address}) is refused: ${reason}; name it in OUTBOUND_ALLOW_HOSTS to allow it`);
  }
}

/** A name-or-glob pattern as a regular expression over full ref names (`main`, `release/*`, `v1.*`). */
export function revPattern(glob: string): RegExp {
  const body = glob
    .split(/(\*\*|\*|\?)/)
    .map((part) => (part === '**' ? '.*' : part === '*' ? '[^/]*' : part === '?' ? '[^/]' : part.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${body}$`);
}

/**
 * A bare mirror of one remote under DATA_DIR, driven through the system git (execFile, no shell,
 * a timeout). The credential travels in the environment as an http.<origin>.extraHeader, so it is
 * sent to that origin only and never appears in argv or logs.
 */
export class GitMirror {
  constructor(
    private readonly opts: { dir: string; source: GitRemoteSource; timeoutMs: number },
  ) {}

  get dir(): string {
    return this.opts.dir;
  }

  /** Clones the mirror when absent, else fetches every branch and tag (pruning those removed). */
  async fetch(): Promise<void> {
    const { dir, source } = this.opts;
    if (!existsSync(path.join(dir, 'HEAD'))) {
      mkdirSync(path.dirname(dir), { recursive: true });
      rmSync(dir, { recursive: true, force: true });
      await this.git(['clone', '--mirror', '--quiet', '--', source.url, dir], path.dirname(dir));
      return;
    }
    await this.git(['fetch', '--prune', '--quiet', '--force', 'origin', '+refs/heads/*:refs/heads/*', '+refs/tags/*:refs/tags/*']);
  }

  /** The remote's default branch (what its HEAD names). */
  async defaultBranch(): Promise<string> {
    const ref = (await this.git(['symbolic-ref', '--quiet', 'HEAD']).catch(() => '')).trim();
    return ref.replace(/^refs\/heads\//, '') || 'main';
  }

  /** The branches and tags matching the source's patterns (the default branch always), tags peeled to their commits. */
  async revisions(): Promise<GitRevision[]> {
    const out = await this.git(['for-each-ref', '--format=%(refname)%00%(objectname)%00%(*objectname)', 'refs/heads', 'refs/tags']);
    const patterns = this.opts.source.revs.map(revPattern);
    const fallback = await this.defaultBranch();
    const revisions: GitRevision[] = [];
    for (const line of out.split('\n').filter(Boolean)) {
      const [ref, object, peeled] = line.split('\0') as [string, string, string];
      const kind = ref.startsWith('refs/heads/') ? 'branch' : 'tag';
      const name = ref.slice(kind === 'branch' ? 'refs/heads/'.length : 'refs/tags/'.length);
      if ((kind === 'branch' && name === fallback) || patterns.some((p) => p.test(name))) revisions.push({ name, kind, commit: peeled || object });
    }
    return revisions;
  }

  /** Writes the tree of `commit` into `target` (replaced), without a .git: what the indexer reads. */
  async export(commit: string, target: string): Promise<void> {
    if (!/^[0-9a-f]{40,64}$/.test(commit)) throw new GitRemoteError(`"${commit}" is not a commit id`);
    const tmp = `${target}.tmp`;
    rmSync(tmp, { recursive: true, force: true });
    mkdirSync(tmp, { recursive: true });
    // A throwaway index file: the mirror's own stays untouched, so exports can run side by side.
    await this.git(['--work-tree', tmp, 'read-tree', commit], undefined, { GIT_INDEX_FILE: `${tmp}.index` });
    await this.git(['--work-tree', tmp, 'checkout-index', '--all', '--force'], undefined, { GIT_INDEX_FILE: `${tmp}.index` });
    rmSync(`${tmp}.index`, { force: true });
    rmSync(target, { recursive: true, force: true });
    renameSync(tmp, target);
  }

  private git(args: string[], cwd?: string, extraEnv: Record<string, string> = {}): Promise<string> {
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/nonexistent',
      GIT_TERMINAL_PROMPT: '0',
      GIT_ALLOW_PROTOCOL: ALLOWED_PROTOCOLS,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_SSH_COMMAND: 'ssh -o BatchMode=yes',
      ...this.credentialEnv(),
      ...extraEnv,
    };
    if (!cwd) env.GIT_DIR = this.opts.dir;
    return new Promise((resolve, reject) => {
      execFile('git', args, { cwd: cwd ?? this.opts.dir, env, timeout: this.opts.timeoutMs, maxBuffer: 32 * 1024 * 1024 }, (err, stdout, stderr) => {
        if (!err) return resolve(stdout);
        const secret = this.opts.source.credential;
        const said = (stderr || err.message).trim().split('\n').slice(-3).join(' ');
        reject(new GitRemoteError(`git ${args[0]} failed${err.killed ? ` (timed out after ${this.opts.timeoutMs} ms)` : ''}: ${this.authHint(said)}${secret ? said.split(secret).join('***') : said}`));
      });
    });
  }

  /** What an HTTP 401 means here: git's own words ("could not read Username … terminal prompts disabled") do not say. */
  private authHint(said: string): string {
    if (!/could not read (Username|Password)|Authentication failed|HTTP Basic: Access denied/i.test(said)) return '';
    return this.opts.source.credential
      ? 'the remote refused the credential (HTTP 401 authentication failed); check it or its environment variable. '
      : 'the remote needs a credential (HTTP 401 authentication required) and none was sent: give the repository a credential, or set the variable its credential_env names. ';
  }

  /** http.<origin>.extraHeader through GIT_CONFIG_* variables: scoped to the origin, never argv. */
  private credentialEnv(): Record<string, string> {
    const { url, credential } = this.opts.source;
    if (!credential || !/^https?:\/\//i.test(url)) return {};
    const origin = new URL(url).origin;
    const header = credential.includes(':') ? `Basic ${Buffer.from(credential).toString('base64')}` : `Bearer ${credential}`;
    return { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: `http.${origin}/.extraHeader`, GIT_CONFIG_VALUE_0: `Authorization: ${header}` };
  }
}
