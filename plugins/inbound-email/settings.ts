import { booleanSetting, credentialOf, envByFieldName, secret, z } from 'switchboard/sdk';

/** The SMTP relay the faxes are mailed through, and who they come from. */
export const emailSettings = z.object({
  /** The SMTP server's hostname (also the name its TLS certificate must carry). */
  smtpHost: z.string().trim().min(1).max(253).optional(),
  /** 587 (submission, STARTTLS) by default; 465 with `smtpSecure`. */
  smtpPort: z.coerce.number().int().min(1).max(65535).default(587),
  /** TLS from the first byte (port 465) instead of STARTTLS. */
  smtpSecure: booleanSetting().default(false),
  /** Refuse to send when the server does not offer STARTTLS (a cleartext relay then needs `false`). */
  requireTls: booleanSetting().default(true),
  smtpUser: z.string().max(320).optional(),
  /** Write-only; a password from the environment goes only to an smtpHost from the environment. */
  smtpPassword: credentialOf('smtpHost', secret(z.string().min(1).max(1000))).optional(),
  /** PEM certificates the server's chain may end in, besides the system's (a private CA, a self-signed relay). */
  tlsCa: z.string().max(65_536).optional(),
  /** The From address (`Fax <fax@example.com>` or `fax@example.com`). */
  from: z.string().trim().min(3).max(320).optional(),
});

export type EmailSettings = z.infer<typeof emailSettings>;

export const emailEnv = envByFieldName('INBOUND_EMAIL', emailSettings);
