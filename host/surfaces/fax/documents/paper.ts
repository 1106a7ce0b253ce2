/** Fax paper sizes; every renderer of a job uses the same one. */
export const PAPERS = ['letter', 'a4'] as const;
export type Paper = (typeof PAPERS)[number];

/** Page size in PDF points (1/72 inch), portrait. */
export const PAPER_POINTS: Record<Paper, { width: number; height: number }> = {
  letter: { width: 612, height: 792 },
  a4: { width: 595.28, height: 841.89 },
};
