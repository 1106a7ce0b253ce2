import type Docker from 'dockerode';

/** DOCKER_HOST names an engine that is not a local unix socket. */
export class RemoteEngineRefusedError extends Error {
  constructor(scheme: string) {
    // Only the scheme is named: a remote DOCKER_HOST may carry credentials.
    super(`DOCKER_HOST uses ${scheme}://, a remote engine; the container controls act only on a local engine through a unix socket`);
    this.name = 'RemoteEngineRefusedError';
  }
}

export const DEFAULT_ENGINE_SOCKET = '/var/run/docker.sock';

/** The unix socket of the local engine named by DOCKER_HOST (unset: the default socket). */
export function localEngineSocket(dockerHost: string | undefined): string {
  if (!dockerHost) return DEFAULT_ENGINE_SOCKET;
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(dockerHost)?.[1]?.toLowerCase();
  if (scheme === 'unix') return dockerHost.slice('unix://'.length);
  if (!scheme && dockerHost.startsWith('/')) return dockerHost;
  throw new RemoteEngineRefusedError(scheme ?? 'an unknown scheme');
}

/**
 * A Docker Engine API client on a local socket; every call gives up after `timeoutMs`. dockerode
 * (with its gRPC and SSH dependencies) is loaded on the first call, not at gateway start.
 */
export async function openEngine(socketPath: string, timeoutMs: number): Promise<Docker> {
  const { default: Dockerode } = await import('dockerode');
  return new Dockerode({ socketPath, timeout: timeoutMs });
}

/** The engine did not answer on its socket (not running, or no such socket). */
export function isEngineUnreachable(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ECONNREFUSED' || code === 'EACCES' || code === 'ETIMEDOUT' || code === 'ECONNRESET';
}

/** The HTTP status the engine answered with, when it answered. */
export function engineStatus(err: unknown): number | undefined {
  const status = (err as { statusCode?: unknown } | undefined)?.statusCode;
  return typeof status === 'number' ? status : undefined;
}
