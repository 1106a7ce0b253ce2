import { createRequire, syncBuiltinESMExports } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The error a plugin in a worker gets for a path outside the folders it may use. */
export class FileAccessRefusedError extends Error {
  readonly code = 'ERR_ACCESS_DENIED';
  constructor(what: string, file: string) {
    super(`${what} of ${file} is refused to an isolated plugin: it reads its own folder and the host's package, and writes its data folder only`);
    this.name = 'FileAccessRefusedError';
  }
}

export interface FileRoots {
  read: readonly string[];
  write: readonly string[];
}

type Access = 'read' | 'write';
// Each function that takes paths, with how it uses each (by argument position); `open` reads or writes by its flags.
const BY_PATH: Record<string, readonly Access[]> = {
  access: ['read'],
  exists: ['read'],
  stat: ['read'],
  lstat: ['read'],
  statfs: ['read'],
  readFile: ['read'],
  readdir: ['read'],
  readlink: ['read'],
  realpath: ['read'],
  opendir: ['read'],
  createReadStream: ['read'],
  watch: ['read'],
  watchFile: ['read'],
  unwatchFile: ['read'],
  writeFile: ['write'],
  appendFile: ['write'],
  createWriteStream: ['write'],
  mkdir: ['write'],
  mkdtemp: ['write'],
  rm: ['write'],
  rmdir: ['write'],
  unlink: ['write'],
  truncate: ['write'],
  chmod: ['write'],
  lchmod: ['write'],
  chown: ['write'],
  lchown: ['write'],
  utimes: ['write'],
  lutimes: ['write'],
  rename: ['write', 'write'],
  copyFile: ['read', 'write'],
  cp: ['read', 'write'],
  link: ['read', 'write'],
  symlink: ['write', 'write'],
  open: ['read'],
};

function inside(root: string, file: string): boolean {
  const rel = path.relative(root, file);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

function pathOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (value instanceof URL) return value.protocol === 'file:' ? fileURLToPath(value) : undefined;
  if (Buffer.isBuffer(value)) return value.toString();
  return undefined;
}

function writes(flags: unknown): boolean {
  if (flags === undefined || flags === null) return false;
  if (typeof flags === 'number') return (flags & 3) !== 0; // O_WRONLY or O_RDWR
  return String(flags) !== 'r' && String(flags) !== 'rs' && String(flags) !== 'sr';
}

/**
 * Confines the file system of an isolate that shares the gateway's process (a worker thread,
 * where Node's permission model does not reach): the path-taking functions of `fs` and
 * `fs/promises` refuse a path, after following symbolic links, outside the roots. It guards the
 * ordinary ways in, as the network guard does; a child process (`isolation: "process"`) is
 * confined by the permission model itself, the stronger boundary for untrusted code.
 */
export function installFileGuard(roots: FileRoots): void {
  const require = createRequire(import.meta.url);
  const fs = require('node:fs') as Record<string, unknown> & typeof import('node:fs');
  const realpath = fs.realpathSync.native;
  const real = (file: string): string => {
    // The longest part that exists, with its links followed, and the rest as written.
    let head = path.resolve(file);
    const tail: string[] = [];
    for (;;) {
      try {
        return path.join(realpath(head), ...tail.reverse());
      } catch {
        const parent = path.dirname(head);
        if (parent === head) return path.resolve(file);
        tail.push(path.basename(head));
        head = parent;
      }
    }
  };
  const readRoots = [...roots.read, ...roots.write].map(real);
  const writeRoots = roots.write.map(real);
  const check = (what: string, access: Access, value: unknown) => {
    const file = pathOf(value);
    if (file === undefined) return; // a file descriptor: it was opened through a checked path
    const resolved = real(file);
    const allowed = access === 'write' ? writeRoots : readRoots;
    if (!allowed.some((root) => inside(root, resolved))) throw new FileAccessRefusedError(what, resolved);
  };
  const guard = (target: Record<string, unknown>, prefix: string, name: string, uses: readonly Access[]) => {
    const original = target[name];
    if (typeof original !== 'function') return;
    const wrap = (fn: (...a: unknown[]) => unknown) =>
      function (this: unknown, ...args: unknown[]) {
        uses.forEach((access, i) => check(`${prefix}${name}`, access, args[i]));
        if (name.startsWith('open') && !name.startsWith('opendir') && writes(args[1])) check(`${prefix}${name}`, 'write', args[0]);
        return fn.apply(this, args);
      };
    const guarded = wrap(original as (...a: unknown[]) => unknown);
    // Members such as realpathSync.native and exists' promisified form go through the same check.
    for (const key of Reflect.ownKeys(original)) {
      if (key === 'length' || key === 'name' || key === 'prototype') continue;
      const member = (original as unknown as Record<PropertyKey, unknown>)[key];
      (guarded as unknown as Record<PropertyKey, unknown>)[key] = typeof member === 'function' ? wrap(member as (...a: unknown[]) => unknown) : member;
    }
    Object.defineProperty(target, name, { value: guarded, writable: false, configurable: false, enumerable: true });
  };
  for (const [name, uses] of Object.entries(BY_PATH)) {
    guard(fs, 'fs.', name, uses);
    guard(fs, 'fs.', `${name}Sync`, uses);
    guard(fs.promises as unknown as Record<string, unknown>, 'fs.promises.', name, uses);
  }
  syncBuiltinESMExports();
}
