// Resident memory of another process, read from /proc/<pid>/status (Linux): VmRSS is what it
// holds now, VmHWM the peak since it started.
import { readFileSync } from 'node:fs';

export const MB = 1024 * 1024;

export interface ProcessMemory {
  /** Resident now, bytes. */
  rss: number;
  /** Peak resident since the process started, bytes. */
  peak: number;
}

export function memoryOf(pid: number): ProcessMemory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN);
  return { rss: kb('VmRSS') * 1024, peak: kb('VmHWM') * 1024 };
}

export const mb = (bytes: number) => `${(bytes / MB).toFixed(1)} MB`;
