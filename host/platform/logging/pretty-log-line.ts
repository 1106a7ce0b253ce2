const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO ', 40: 'WARN ', 50: 'ERROR', 60: 'FATAL' };
// Fields every record has; the readable line shows them in its own way or not at all.
const SHOWN_APART = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'service', 'lines']);

function fieldText(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  return JSON.stringify(value);
}

/**
 * One pino JSON record as one readable line: time, level, message, then its fields as
 * key=value. A record with `lines` (the start-up banner) prints them indented below instead.
 */
export function prettyLogLine(json: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json.trimEnd();
  }
  const time = typeof record.time === 'number' ? new Date(record.time).toISOString().slice(11, 23) : '';
  const level = LEVELS[record.level as number] ?? String(record.level);
  const head = `${time} ${level} ${String(record.msg ?? '')}`;
  if (Array.isArray(record.lines)) return [head, ...record.lines.map((line) => `    ${String(line)}`)].join('\n');
  const fields = Object.entries(record)
    .filter(([key, value]) => !SHOWN_APART.has(key) && value !== undefined)
    .map(([key, value]) => `${key}=${fieldText(value)}`);
  return fields.length ? `${head}  ${fields.join(' ')}` : head;
}

/** A pino destination writing each record as a readable line to `out` (stdout by default). */
export function prettyLogStream(out: { write(text: string): unknown } = process.stdout): { write(json: string): void } {
  return {
    write(json) {
      for (const line of json.split('\n')) if (line.trim()) out.write(`${prettyLogLine(line)}\n`);
    },
  };
}
