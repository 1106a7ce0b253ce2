/**
 * A cron expression that runs about every `minutes`: cron fields cannot express every
 * interval, so minutes under an hour use `*\/m` (the last gap before the hour may be shorter),
 * longer ones round to whole hours, and whole days run at midnight.
 */
export function cronForInterval(minutes: number): string {
  if (minutes < 60) return `*/${Math.max(1, Math.floor(minutes))} * * * *`;
  if (minutes % 1440 === 0) return minutes === 1440 ? '0 0 * * *' : `0 0 */${minutes / 1440} * *`;
  const hours = Math.max(1, Math.min(23, Math.round(minutes / 60)));
  return `0 */${hours} * * *`;
}
