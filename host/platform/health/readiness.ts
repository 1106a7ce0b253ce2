export interface CheckResult {
  ok: boolean;
  /** Passed, but something needs the operator's attention (e.g. no fax backend configured yet). */
  warning?: boolean;
  /** Failed, but the dependency serves only once selected: reported, not counted against readiness. */
  optional?: boolean;
  detail?: string;
  info?: Record<string, unknown>;
}

export interface ReadinessReport {
  status: 'ready' | 'not_ready';
  checks: Array<CheckResult & { name: string }>;
}

/** The checks behind /health/ready: one per dependency, added by the parts that own them. */
export class Readiness {
  private readonly checks = new Map<string, () => Promise<CheckResult>>();

  add(name: string, check: () => Promise<CheckResult> | CheckResult): void {
    this.checks.set(name, async () => check());
  }

  async run(extra: Array<CheckResult & { name: string }> = [], timeoutMs = 5000): Promise<ReadinessReport> {
    const results = await Promise.all(
      [...this.checks].map(async ([name, check]) => {
        try {
          const timer = new Promise<CheckResult>((resolve) => setTimeout(() => resolve({ ok: false, detail: `no answer within ${timeoutMs} ms` }), timeoutMs).unref());
          return { name, ...(await Promise.race([check(), timer])) };
        } catch (err) {
          return { name, ok: false, detail: (err as Error).message };
        }
      }),
    );
    const checks = [...results, ...extra];
    return { status: checks.every((c) => c.ok || c.optional) ? 'ready' : 'not_ready', checks };
  }
}
