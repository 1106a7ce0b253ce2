/** What the admin status views show of the fax surface. */
export interface FaxStatusPort {
  jobsByStatus(): Promise<Record<string, number>>;
  /** The document renderer's version (ghostscript), or null when it is missing. */
  rendererVersion(): Promise<string | null>;
}
