import type { Readable } from 'node:stream';

/** The storage contract: artifacts (PDF, TIFF) by key. */
export const STORAGE_CONTRACT = '1.0.0';

export interface StorageEntry {
  key: string;
  size: number;
  modifiedAt: Date;
}

export interface StorageProvider {
  /** Writes atomically: a reader sees the old object or the whole new one. */
  put(key: string, data: Buffer | Readable): Promise<StorageEntry>;
  /** Throws StorageNotFoundError when absent. */
  get(key: string): Promise<Buffer>;
  stream(key: string): Promise<Readable>;
  /** True when something was removed. */
  delete(key: string): Promise<boolean>;
  exists(key: string): Promise<boolean>;
  list(prefix?: string): Promise<StorageEntry[]>;
  /** The file's path on this machine, for local backends; programs like a PBX need it. */
  localPath?(key: string): string;
}

export class StorageNotFoundError extends Error {
  constructor(readonly key: string) {
    super(`storage key not found: ${key}`);
    this.name = 'StorageNotFoundError';
  }
}

export class StorageKeyError extends Error {
  constructor(readonly key: string, reason: string) {
    super(`invalid storage key "${key}": ${reason}`);
    this.name = 'StorageKeyError';
  }
}

/** Keys are relative, slash-separated, of [A-Za-z0-9._-] segments, never `.` or `..`. */
export function assertStorageKey(key: string): void {
  if (typeof key !== 'string' || key.length === 0 || key.length > 512) throw new StorageKeyError(String(key), 'length');
  if (key.startsWith('/')) throw new StorageKeyError(key, 'absolute');
  for (const segment of key.split('/')) {
    if (segment === '' || segment === '.' || segment === '..') throw new StorageKeyError(key, 'empty or dot segment');
    if (!/^[A-Za-z0-9._-]+$/.test(segment)) throw new StorageKeyError(key, 'characters outside [A-Za-z0-9._-]');
  }
}
