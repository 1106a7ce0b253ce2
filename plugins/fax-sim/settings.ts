import { secret, z } from 'switchboard/sdk';

/** Every field has a default: the simulator starts active on a fresh install. */
export const faxSimSettings = z.object({
  /** How long a simulated fax takes from acceptance to its outcome. */
  delayMs: z.coerce.number().int().min(0).max(600_000).default(1500),
  /**
   * Key of the X-Fax-Sim-Signature HMAC on status callbacks and injected inbound faxes. Unset: a
   * random secret generated once per install and kept in DATA_DIR/fax-sim/secret.
   */
  secret: secret(z.string().min(16)).optional(),
  /**
   * The gateway's public URL, where status callbacks go (egress allows its host besides
   * loopback). Filled from PUBLIC_API_URL; unset, callbacks may go to loopback only.
   */
  gatewayUrl: z.url().optional(),
});

export type FaxSimSettings = z.infer<typeof faxSimSettings>;

export const faxSimEnv = {
  delayMs: 'FAX_SIM_DELAY_MS',
  secret: 'FAX_SIM_SECRET',
  gatewayUrl: 'PUBLIC_API_URL',
} as const satisfies Partial<Record<keyof FaxSimSettings, string>>;
