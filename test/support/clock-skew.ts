/**
 * Runs `work` with this process's clock (Date.now) moved by `skewMs`, as on a gateway instance
 * whose clock is off: what it writes and compares by its own clock shifts, the database's does not.
 */
export async function withClockSkew<T>(skewMs: number, work: () => Promise<T>): Promise<T> {
  const realNow = Date.now;
  Date.now = () => realNow() + skewMs;
  try {
    return await work();
  } finally {
    Date.now = realNow;
  }
}
