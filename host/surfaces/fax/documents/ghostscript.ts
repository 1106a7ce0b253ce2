import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Metadata } from 'sharp';
import { loadSharp } from './lazy-modules.js';
import type { Paper } from './paper.js';

const GS = 'gs';

export interface FaxTiffOptions {
  paper: Paper;
  /** Ghostscript is killed (SIGKILL) when it runs longer than this. */
  timeoutMs: number;
  signal?: AbortSignal;
}

/** Ghostscript failed, or was killed for running too long. */
export class GhostscriptError extends Error {
  constructor(message: string, readonly timedOut = false, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'GhostscriptError';
  }
}

/**
 * Renders a PDF as a fax TIFF (CCITT G4, 204x196 dpi, every page fitted to the paper) with
 * ghostscript. Writes a temporary file beside `tiffPath` and renames it, so a reader never
 * sees half a TIFF.
 */
export async function pdfToFaxTiff(pdfPath: string, tiffPath: string, options: FaxTiffOptions): Promise<{ pages: number }> {
  const target = path.resolve(tiffPath);
  const temp = path.join(path.dirname(target), `.${path.basename(target)}.${randomBytes(6).toString('hex')}.part`);
  const args = [
    '-q',
    '-dNOPAUSE',
    '-dBATCH',
    '-dSAFER',
    '-sDEVICE=tiffg4',
    '-r204x196',
    `-sPAPERSIZE=${options.paper}`,
    '-dFIXEDMEDIA',
    '-dPDFFitPage',
    // Ghostscript expands %d in output names (page numbers); a literal % is written %%.
    `-sOutputFile=${temp.replaceAll('%', '%%')}`,
    // An absolute path can never be taken for an option.
    path.resolve(pdfPath),
  ];
  try {
    await runGhostscript(args, options);
    const pages = await tiffPageCount(temp);
    await rename(temp, target);
    return { pages };
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
}

function runGhostscript(args: string[], options: FaxTiffOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      GS,
      args,
      { timeout: options.timeoutMs, killSignal: 'SIGKILL', maxBuffer: 1024 * 1024, windowsHide: true, ...(options.signal ? { signal: options.signal } : {}) },
      (err, _stdout, stderr) => {
        if (!err) return resolve();
        const killed = child.killed || (err as { killed?: boolean }).killed === true;
        if (killed && options.signal?.aborted) return reject(new GhostscriptError('ghostscript was stopped', false, { cause: err }));
        if (killed) return reject(new GhostscriptError(`ghostscript took longer than ${options.timeoutMs} ms and was killed`, true, { cause: err }));
        const detail = String(stderr).trim().split('\n').slice(0, 3).join(' ') || err.message;
        reject(new GhostscriptError(`ghostscript could not render the PDF: ${detail}`, false, { cause: err }));
      },
    );
  });
}

async function tiffPageCount(file: string): Promise<number> {
  const sharp = await loadSharp();
  let meta: Metadata;
  try {
    meta = await sharp(file, { limitInputPixels: false }).metadata();
  } catch (err) {
    throw new GhostscriptError('ghostscript wrote no readable TIFF (the PDF may have no renderable pages)', false, { cause: err });
  }
  if (meta.format !== 'tiff') throw new GhostscriptError(`ghostscript wrote ${meta.format ?? 'an unknown format'}, not a TIFF`);
  return meta.pages ?? 1;
}

let version: Promise<string | null> | undefined;

/**
 * The installed ghostscript's version (`gs --version`), null when it cannot run. A version is
 * asked once; a failure is asked again next time, so installing gs heals readiness.
 */
export function ghostscriptVersion(): Promise<string | null> {
  const current = (version ??= new Promise((resolve) => {
    execFile(GS, ['--version'], { timeout: 10_000 }, (err, stdout) => resolve(err ? null : String(stdout).trim() || null));
  }));
  void current.then((v) => {
    if (v === null && version === current) version = undefined;
  });
  return current;
}
