import { readFileSync } from 'node:fs';
import { configFilesOf, DEFAULT_HOST, DEFAULT_PORT } from './config-files.js';

export interface ListenAddress {
  port: number;
  host: string;
}

/**
 * PORT and HOST as the configuration registry resolves them (the environment, the env file, the
 * JSON config file, the defaults; a value that is not valid falls through to the next), read
 * without the configuration model, whose modules take most of a start: `npm start` binds the port
 * with them first. host/main.ts checks them against the registry once it is loaded.
 */
export function readListenAddress(env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): ListenAddress {
  const { fileEnv, configFile } = configFilesOf(env, cwd);
  const stored = readConfigFileObject(configFile);
  const layers = (key: string): unknown[] => [env[key] || undefined, fileEnv[key] || undefined, stored[key]];
  return {
    port: firstValid(layers('PORT'), asPort) ?? DEFAULT_PORT,
    host: firstValid(layers('HOST'), asHost) ?? DEFAULT_HOST,
  };
}

function firstValid<T>(values: unknown[], valid: (value: unknown) => T | undefined): T | undefined {
  for (const value of values) {
    if (value === undefined) continue;
    const parsed = valid(value);
    if (parsed !== undefined) return parsed;
  }
  return undefined;
}

/** The model's `integer(0, 65535)`: a number, or a text that reads as one. */
function asPort(value: unknown): number | undefined {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value.trim()) : value;
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 && n <= 65535 ? n : undefined;
}

/** The model's `text()`: a non-empty string. */
function asHost(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/** The config file's top-level object; {} when it is missing or not a JSON object (the registry then uses defaults too). */
function readConfigFileObject(file: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
