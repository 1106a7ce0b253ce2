// CPU time of another process (user + system, all its threads), read from /proc/<pid>/stat
// (Linux). What a server spends per request does not depend on how fast the load client is.
import { readFileSync } from 'node:fs';

const TICK_MS = 10; // USER_HZ is 100 on Linux

export function cpuMsOf(pid: number): number {
  // The command name may hold spaces; the fields after its closing parenthesis are fixed.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}
