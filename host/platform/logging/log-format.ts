import type { DestinationStream } from 'pino';
import { prettyLogStream } from './pretty-log-line.js';

export type LogFormat = 'auto' | 'json' | 'pretty';

/** `auto` reads as people do at a terminal and as collectors do anywhere else. */
export function resolvedLogFormat(format: LogFormat, stream: { isTTY?: boolean } = process.stdout): 'json' | 'pretty' {
  return format === 'auto' ? (stream.isTTY ? 'pretty' : 'json') : format;
}

/** Where pino writes: the given destination (stdout by default), through the readable formatter when pretty. */
export function formattedDestination(format: LogFormat, destination?: DestinationStream): DestinationStream | undefined {
  const pretty = resolvedLogFormat(format, destination ? {} : process.stdout) === 'pretty';
  return pretty ? prettyLogStream(destination ?? process.stdout) : destination;
}
