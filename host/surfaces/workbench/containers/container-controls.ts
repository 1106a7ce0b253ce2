import type Docker from 'dockerode';
import type { ContainerInfo } from 'dockerode';
import { demultiplexLogs } from './log-frames.js';
import { engineStatus, isEngineUnreachable, localEngineSocket, openEngine } from './engine.js';

export interface ContainerSettings {
  dockerHost: string | undefined;
  project: string;
  services: readonly string[];
  coreServices: readonly string[];
  optionalServices: readonly string[];
  timeoutS: number;
  logsTailDefault: number;
}

export type ContainerAction = 'start' | 'stop' | 'restart';

const PROJECT_LABEL = 'com.docker.compose.project';
const SERVICE_LABEL = 'com.docker.compose.service';
const managedLabel = (project: string) => `io.${project}.managed`;

/** Why a control request was refused or failed; the route maps `kind` to a status. */
export class ContainerControlError extends Error {
  constructor(
    readonly kind: 'not_found' | 'ambiguous' | 'confirmation_required' | 'ownership_changed' | 'engine_unreachable' | 'action_failed',
    message: string,
  ) {
    super(message);
    this.name = 'ContainerControlError';
  }
}

export interface ContainerRecord {
  id: string;
  short_id: string;
  name: string;
  image: string;
  state: string;
  status: string;
  ports: string[];
  compose_project: string;
  compose_service: string;
  managed: boolean;
}

export interface ServiceRecord {
  service: string;
  /** The container's state (running, exited, created, paused, ...), `missing`, or `optional, not deployed`. */
  state: string;
  core: boolean;
  optional: boolean;
  /** Every managed container of the service: one normally, several when ownership is ambiguous. */
  containers: ContainerRecord[];
}

/**
 * Start, stop, restart and logs of the allowlisted services of one compose project, on the
 * local engine. A service key acts on exactly one container that carries both ownership
 * labels, checked again on its full id right before acting.
 */
export class ContainerControls {
  constructor(private readonly settings: () => ContainerSettings) {}

  private async engine(): Promise<{ docker: Docker; socket: string; settings: ContainerSettings }> {
    const settings = this.settings();
    const socket = localEngineSocket(settings.dockerHost);
    return { docker: await openEngine(socket, (settings.timeoutS + 10) * 1000), socket, settings };
  }

  async status(): Promise<{ running: boolean; runtime: string | null; version: string | null; project_name: string; containers_count: number; detail?: string }> {
    const { docker, socket, settings } = await this.engine();
    try {
      const version = (await docker.version()) as { Version?: string; Components?: Array<{ Name?: string }> };
      const managed = await this.managedContainers(docker, settings);
      const runtime = version.Components?.[0]?.Name ?? 'Docker Engine';
      return { running: true, runtime, version: version.Version ?? null, project_name: settings.project, containers_count: managed.length };
    } catch (err) {
      if (!isEngineUnreachable(err)) throw err;
      return { running: false, runtime: null, version: null, project_name: settings.project, containers_count: 0, detail: `no container engine answers on ${socket}` };
    }
  }

  async services(): Promise<{ project: string; services: ServiceRecord[] }> {
    const { docker, settings } = await this.engine();
    const managed = await this.guard(() => this.managedContainers(docker, settings));
    const services = settings.services.map((service): ServiceRecord => {
      const containers = managed.filter((c) => c.compose_service === service);
      const optional = settings.optionalServices.includes(service);
      const state = containers.length === 1 ? containers[0]!.state : containers.length > 1 ? 'ambiguous' : optional ? 'optional, not deployed' : 'missing';
      return { service, state, core: settings.coreServices.includes(service), optional, containers };
    });
    return { project: settings.project, services };
  }

  async act(service: string, action: ContainerAction, confirm: unknown): Promise<{ success: true; service: string; action: ContainerAction; state: string }> {
    const { docker, settings } = await this.engine();
    if (action !== 'start') this.checkConfirmation(service, action, confirm, settings);
    const id = await this.resolve(docker, settings, service);
    const container = docker.getContainer(id);
    await this.guard(async () => {
      try {
        if (action === 'start') await container.start();
        else if (action === 'stop') await container.stop({ t: settings.timeoutS });
        else await container.restart({ t: settings.timeoutS });
      } catch (err) {
        // 304: already in the requested state.
        if (engineStatus(err) === 304) return;
        if (isEngineUnreachable(err)) throw err;
        throw new ContainerControlError('action_failed', `${action} of "${service}" failed: ${engineMessage(err)}`);
      }
    });
    const info = await this.guard(() => container.inspect());
    return { success: true, service, action, state: info.State?.Status ?? 'unknown' };
  }

  async logs(service: string, tail: number | undefined): Promise<{ success: true; service: string; tail: number; logs: string }> {
    const { docker, settings } = await this.engine();
    const lines = tail ?? settings.logsTailDefault;
    const id = await this.resolve(docker, settings, service);
    const container = docker.getContainer(id);
    const raw = await this.guard(async () => {
      const info = await container.inspect();
      const output = (await container.logs({ stdout: true, stderr: true, tail: lines, follow: false })) as unknown as Buffer;
      return info.Config?.Tty ? output.toString('utf8') : demultiplexLogs(Buffer.from(output));
    });
    return { success: true, service, tail: lines, logs: raw };
  }

  private checkConfirmation(service: string, action: ContainerAction, confirm: unknown, settings: ContainerSettings): void {
    if (settings.coreServices.includes(service)) {
      if (confirm !== service) {
        throw new ContainerControlError('confirmation_required', `${action} of core service "${service}" needs the service key typed out: send {"confirm": "${service}"}`);
      }
      return;
    }
    if (confirm !== true && confirm !== service) {
      throw new ContainerControlError('confirmation_required', `${action} of "${service}" needs confirmation: send {"confirm": true}`);
    }
  }

  /** The one full container id of an allowlisted service, its ownership labels re-read on that id. */
  private async resolve(docker: Docker, settings: ContainerSettings, service: string): Promise<string> {
    const notFound = () => new ContainerControlError('not_found', `service "${service}" is not in project "${settings.project}" or the stack is not up`);
    if (!settings.services.includes(service)) throw notFound();
    const matches = (await this.guard(() => this.managedContainers(docker, settings))).filter((c) => c.compose_service === service);
    if (matches.length === 0) throw notFound();
    if (matches.length > 1) {
      throw new ContainerControlError('ambiguous', `service "${service}" matches ${matches.length} managed containers of project "${settings.project}"; remove the extra ones before acting`);
    }
    const id = matches[0]!.id;
    const labels = (await this.guard(() => docker.getContainer(id).inspect())).Config?.Labels ?? {};
    const owned = labels[PROJECT_LABEL] === settings.project && labels[managedLabel(settings.project)] === 'true' && labels[SERVICE_LABEL] === service;
    if (!owned) throw new ContainerControlError('ownership_changed', `container ${id.slice(0, 12)} no longer carries the ownership labels of "${service}"; nothing was done`);
    return id;
  }

  private async managedContainers(docker: Docker, settings: ContainerSettings): Promise<ContainerRecord[]> {
    const list = await docker.listContainers({
      all: true,
      filters: { label: [`${PROJECT_LABEL}=${settings.project}`, `${managedLabel(settings.project)}=true`] },
    });
    // The engine filtered by label; the same rule is applied here so nothing else is ever shown.
    return list.filter((c) => c.Labels?.[PROJECT_LABEL] === settings.project && c.Labels?.[managedLabel(settings.project)] === 'true' && settings.services.includes(c.Labels?.[SERVICE_LABEL] ?? '')).map(toRecord);
  }

  private async guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      if (err instanceof ContainerControlError) throw err;
      if (isEngineUnreachable(err)) throw new ContainerControlError('engine_unreachable', 'the container engine does not answer on its local socket');
      if (engineStatus(err) === 404) throw new ContainerControlError('not_found', 'the container is gone');
      throw new ContainerControlError('action_failed', `the container engine answered: ${engineMessage(err)}`);
    }
  }
}

function toRecord(c: ContainerInfo): ContainerRecord {
  const labels = c.Labels ?? {};
  const project = labels[PROJECT_LABEL] ?? '';
  return {
    id: c.Id,
    short_id: c.Id.slice(0, 12),
    name: (c.Names?.[0] ?? '').replace(/^\//, ''),
    image: c.Image,
    state: c.State,
    status: c.Status,
    ports: (c.Ports ?? []).map((p) => (p.PublicPort ? `${p.IP ?? ''}:${p.PublicPort}->${p.PrivatePort}/${p.Type}` : `${p.PrivatePort}/${p.Type}`)),
    compose_project: project,
    compose_service: labels[SERVICE_LABEL] ?? '',
    managed: labels[managedLabel(project)] === 'true',
  };
}

function engineMessage(err: unknown): string {
  const json = (err as { json?: { message?: unknown } } | undefined)?.json;
  const message = typeof json?.message === 'string' ? json.message : (err as Error | undefined)?.message;
  return (message ?? 'unknown error').slice(0, 300);
}
