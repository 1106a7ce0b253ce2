import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect } from 'node:net';
import Docker from 'dockerode';

export const TINY_IMAGE = 'localhost/tiny:latest';
const BUSYBOX = '/bin/busybox';
const APPLETS = ['sh', 'sleep', 'echo', 'cat', 'ls', 'true'];

export interface PodmanEngine {
  socketPath: string;
  dockerHost: string;
  docker: Docker;
  stop(): Promise<void>;
}

/**
 * A real container engine for one test file: podman's Docker-compatible API on a unix socket in
 * a temp dir (runc, no default ulimits, its own storage), with a 2 MB image made from a tar of
 * busybox-static, so nothing is pulled. The service process and its containers are stopped by
 * `stop()`.
 */
export async function startPodman(): Promise<PodmanEngine> {
  for (const [cmd, pkg] of [['podman', 'podman'], ['runc', 'runc']] as const) {
    if (spawnSync('sh', ['-c', `command -v ${cmd}`]).status !== 0) throw new Error(`${cmd} not found: install the ${pkg} package (npm test installs it when run as root)`);
  }
  if (!existsSync(BUSYBOX)) throw new Error(`${BUSYBOX} not found: install the busybox-static package`);
  const dir = mkdtempSync(path.join(tmpdir(), 'switchboard-podman-'));
  const conf = path.join(dir, 'containers.conf');
  writeFileSync(conf, '[containers]\ndefault_ulimits=[]\n[engine]\nruntime="runc"\n');
  const env = { ...process.env, CONTAINERS_CONF: conf };
  const base = ['--root', path.join(dir, 'storage'), '--runroot', path.join(dir, 'run')];
  const rootfs = path.join(dir, 'rootfs');
  mkdirSync(path.join(rootfs, 'bin'), { recursive: true });
  copyFileSync(BUSYBOX, path.join(rootfs, 'bin', 'busybox'));
  for (const applet of APPLETS) symlinkSync('busybox', path.join(rootfs, 'bin', applet));
  const tar = spawnSync('sh', ['-c', `tar -C '${rootfs}' -c . | podman ${base.join(' ')} import - ${TINY_IMAGE}`], { env, encoding: 'utf8' });
  if (tar.status !== 0) throw new Error(`podman import failed: ${tar.stderr}`);
  const socketPath = path.join(dir, 'api.sock');
  const service: ChildProcess = spawn('podman', [...base, 'system', 'service', '--time=0', `unix://${socketPath}`], { env, stdio: 'ignore' });
  await waitForSocket(socketPath, 15_000);
  const docker = new Docker({ socketPath });
  return {
    socketPath,
    dockerHost: `unix://${socketPath}`,
    docker,
    async stop() {
      spawnSync('podman', [...base, 'rm', '--all', '--force', '--time', '0'], { env, stdio: 'ignore' });
      if (service.exitCode === null) {
        const exited = new Promise((resolve) => service.once('exit', resolve));
        service.kill('SIGTERM');
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 3000))]);
        if (service.exitCode === null && service.signalCode === null) {
          service.kill('SIGKILL');
          await exited;
        }
      }
      // podman's helpers (conmon, the pause process) may still be removing their run files or
      // holding a mount for a moment after the service ends: unmount and remove until it goes.
      for (let attempt = 1; ; attempt++) {
        unmountUnder(dir);
        try {
          rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
          break;
        } catch (err) {
          if (attempt >= 5) {
            console.error(`[podman] could not remove ${dir}: ${(err as Error).message}`);
            break;
          }
          await new Promise((resolve) => setTimeout(resolve, 500 * attempt));
        }
      }
    },
  };
}

/** podman leaves mounts (its overlay store, shm) under its root; lazily unmount them, deepest first. */
function unmountUnder(dir: string): void {
  const mounts = readFileSync('/proc/mounts', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[1] ?? '')
    .filter((point) => point === dir || point.startsWith(`${dir}/`))
    .sort((a, b) => b.length - a.length);
  for (const point of mounts) spawnSync('umount', ['-l', point], { stdio: 'ignore' });
}

function waitForSocket(socketPath: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const attempt = () => {
      const socket = connect(socketPath);
      socket.once('connect', () => {
        socket.destroy();
        resolve();
      });
      socket.once('error', () => {
        socket.destroy();
        if (Date.now() > deadline) reject(new Error(`podman service did not open ${socketPath}`));
        else setTimeout(attempt, 50);
      });
    };
    attempt();
  });
}

/** Creates (and by default starts) a container of the tiny image with the given labels. */
export async function createContainer(
  docker: Docker,
  options: { name: string; labels: Record<string, string>; cmd?: string[]; start?: boolean },
): Promise<string> {
  const container = await docker.createContainer({
    name: options.name,
    Image: TINY_IMAGE,
    Cmd: options.cmd ?? ['sleep', '3600'],
    Labels: options.labels,
    // An init process forwards SIGTERM, so a stop takes milliseconds instead of the timeout.
    HostConfig: { Init: true, NetworkMode: 'none' },
  });
  if (options.start !== false) await container.start();
  return container.id;
}
