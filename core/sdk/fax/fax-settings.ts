import { z } from 'zod';
import { singleLineText } from '../settings.js';

/**
 * Settings shared by the fax plugins, spread into a plugin's own settings object so each field
 * means the same everywhere (and the environment fills it the same way).
 */

/** A hosted (REST) provider's time limit for one call, and how the document is handed over. */
export const hostedFaxSettings = {
  /** 'url': the provider downloads our tokenized PDF URL; 'upload': we send the PDF as a file. */
  sendMode: z.enum(['url', 'upload']).default('url'),
  timeoutMs: z.coerce.number().int().positive().default(30_000),
};

/** A PBX plugin's dialling and session settings (AMI, ESL); each text ends up on a protocol line. */
export const pbxFaxSettings = {
  callerId: singleLineText().default(''),
  /** Fax page header. */
  header: singleLineText().default(''),
  /** Local station id, the TSI. */
  stationId: singleLineText().default(''),
  paper: z.enum(['letter', 'a4']).default('letter'),
  /** How long the PBX rings the destination before giving up. */
  dialTimeoutMs: z.coerce.number().int().min(1000).default(60_000),
  /** A job with no result within this long after the dial is FAILED. */
  resultTimeoutMs: z.coerce.number().int().min(1).default(180_000),
  connectTimeoutMs: z.coerce.number().int().min(1).default(5_000),
  reconnectInitialMs: z.coerce.number().int().min(1).default(1_000),
  reconnectMaxMs: z.coerce.number().int().min(1).default(30_000),
};

/** The environment variables every PBX plugin reads for the fields above. */
export const pbxFaxEnv = { header: 'FAX_HEADER', stationId: 'FAX_LOCAL_STATION_ID' } as const;
