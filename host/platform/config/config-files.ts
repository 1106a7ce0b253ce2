import { readFileSync } from 'node:fs';
import path from 'node:path';
import dotenv from 'dotenv';

/** Defaults of the keys `npm start` reads before the configuration model loads (model/host.ts declares them). */
export const DEFAULT_PORT = 8080;
export const DEFAULT_HOST = '0.0.0.0';
export const DEFAULT_DATA_DIR = './data';

/** Where a process's configuration lives, and the env file's values (empty when it is missing or unreadable). */
export interface ConfigFiles {
  envFile: string;
  fileEnv: Record<string, string>;
  configFile: string;
}

/**
 * ENV_FILE (default `.env`) and CONFIG_FILE (default `<DATA_DIR>/switchboard.config.json`), both
 * resolved against `cwd`; CONFIG_FILE and DATA_DIR are read from the environment, then the env file.
 */
export function configFilesOf(env: NodeJS.ProcessEnv, cwd: string): ConfigFiles {
  const envFile = path.resolve(cwd, env.ENV_FILE || '.env');
  const fileEnv = readEnvFile(envFile, []);
  const pick = (key: string) => env[key] || fileEnv[key] || undefined;
  const configFile = path.resolve(cwd, pick('CONFIG_FILE') ?? path.join(pick('DATA_DIR') ?? DEFAULT_DATA_DIR, 'switchboard.config.json'));
  return { envFile, fileEnv, configFile };
}

/** The env file's values; a missing file is none, an unreadable one is noted in `problems`. */
export function readEnvFile(file: string, problems: string[]): Record<string, string> {
  try {
    return dotenv.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
      problems.push(`${path.basename(file)}: cannot be read (${(err as NodeJS.ErrnoException).code ?? 'read error'}); ignored`);
    }
    return {};
  }
}
