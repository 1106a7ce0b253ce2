/** The severity labels conditions emit; ALERT_NOTIFY_SEVERITIES must use these words. */
export const SEVERITY_LABELS = ['critical', 'warning', 'info'] as const;
export type Severity = (typeof SEVERITY_LABELS)[number];

/** What a condition reports while it holds. The instance is (type, labels). */
export interface FiringCondition {
  type: string;
  category: 'fax' | 'judge' | 'evaluation' | 'accounting' | 'plugins' | 'test';
  severity: string;
  labels: Record<string, string>;
  title: string;
  context: Record<string, unknown>;
}

/** A condition: what holds now. An instance absent from the answer has cleared. */
export interface ConditionSource {
  name: string;
  evaluate(now: number): Promise<FiringCondition[]> | FiringCondition[];
}
