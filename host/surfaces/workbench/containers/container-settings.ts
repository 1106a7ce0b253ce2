import { envOnly } from '../../../../core/sdk/settings.js';
import { z } from 'zod';
import { integer, optionalText, text } from '../../../platform/config/model/field-kinds.js';

// A list arrives as a comma-separated string from the environment and as an array from the
// JSON file or the API.
const serviceKeys = () =>
  z.preprocess(
    (v) => (typeof v === 'string' ? v.split(',').map((s) => s.trim()).filter(Boolean) : v),
    z.array(z.string().regex(/^[a-z0-9][a-z0-9_.-]*$/, 'must be a compose service key ([a-z0-9_.-])')),
  );

/** Configuration keys of the container controls and host process status (section `docker`, env `DOCKER__*`). */
export const DockerKeys = {
  DOCKER_HOST: envOnly(optionalText().describe(
    'Docker Engine API of the container controls: a local unix socket (unix:///run/podman/podman.sock); unset means unix:///var/run/docker.sock. A remote engine (tcp://, ssh://) is refused with 403.',
  )),
  'docker.project': z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]*$/, 'must be a compose project name ([a-z0-9_-])')
    .default('switchboard')
    .describe('Compose project whose containers the controls manage (label com.docker.compose.project); managed containers also carry io.<project>.managed=true.'),
  'docker.services': serviceKeys()
    .default(['postgres', 'neo4j', 'qdrant', 'caddy', 'auth-portal', 'auth-sessions', 'tunnel', 'tempo', 'api', 'postgres-exporter', 'judge-selfhosted', 'editor'])
    .describe('Allowlist of compose service keys the controls show and act on; anything else is invisible.'),
  'docker.core_services': serviceKeys()
    .default(['postgres', 'neo4j', 'qdrant', 'caddy', 'auth-portal', 'auth-sessions', 'tunnel', 'tempo'])
    .describe('Core data and ingress services: stop and restart need {"confirm": "<service key>"} typed out.'),
  'docker.optional_services': serviceKeys()
    .default(['api', 'postgres-exporter'])
    .describe('Services that may be absent on purpose: when not created they read "optional, not deployed" instead of Missing.'),
  'docker.timeout_s': integer(1, 600).default(10).describe('Seconds a stop or restart waits for the container to exit before it is killed; engine calls time out after this plus 10 s.'),
  'docker.logs_tail_default': integer(1, 1000).default(100).describe('Log lines GET /api/docker/services/{service}/logs returns when tail is not given (at most 1000).'),
  FRONTEND_DEV_URL: text()
    .default('http://127.0.0.1:5173')
    .describe('Dev server of the web frontend probed by GET /api/dev/status (loopback URLs only; others count as not answering).'),
};
