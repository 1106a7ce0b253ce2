/**
 * What happens to a simulated fax, chosen by the last four digits of the destination:
 * 0002 busy on the first attempt (a line failure the host may redial), then delivered; 0003 fails with a provider error; 0004 the
 * submit's answer is lost (the host must look the fax up); anything else (0001 included) is
 * delivered after delayMs.
 */
export type Scenario = 'delivered' | 'busy-then-delivered' | 'failed' | 'answer-lost';

const BY_ENDING: Record<string, Scenario> = {
  '0002': 'busy-then-delivered',
  '0003': 'failed',
  '0004': 'answer-lost',
};

export function scenarioFor(to: string): Scenario {
  return BY_ENDING[to.replace(/\D/g, '').slice(-4)] ?? 'delivered';
}

/** The provider error of the 0003 scenario, as a real provider words one. */
export const SIMULATED_FAILURE = 'no fax answer tone from the receiving machine (simulated provider error 3003)';
/** The error of a busy line (0002): "busy" leads, so retry policies can tell it from a failure. */
export const SIMULATED_BUSY = 'busy: the line was busy (simulated; the next attempt of this job goes through)';
