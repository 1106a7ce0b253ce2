import { parseArgs, type ParseArgsConfig } from 'node:util';

type ParsedArgs<T extends NonNullable<ParseArgsConfig['options']>> = ReturnType<typeof parseArgs<{ args: string[]; options: T; allowPositionals: true; strict: true }>>;
import type { CliOutput } from './main.js';

/** One entry of the command table: `switchboard <name> ...`. */
export interface CliCommand {
  name: string;
  /** One line for `switchboard --help`. */
  summary: string;
  /** The text of `switchboard <name> --help`. */
  usage: string;
  run(args: string[], io: CliOutput): Promise<number>;
}

/** A command line the command cannot run: printed with its usage, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** node:util's parser, strict: an unknown option or a missing value is a UsageError. */
export function parseCommandArgs<T extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: T): ParsedArgs<T> {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}
