/** What the admin status views show of the fax surface. */
export interface FaxStatusPort {
  jobsByStatus(): Promise<Record<string, number>>;
  inboundCount(): Promise<number>;
  /** The document renderer's version (ghostscript), or null when it is missing. */
  rendererVersion(): Promise<string | null>;
  /** The fax settings the diagnostics bundle shows. */
  settings(): { backend: string; inboundEnabled: boolean; artifactTtlDays: number };
}
