import { z } from 'zod';
import type { Kernel } from '../../../../core/kernel/kernel.js';
import type { Manifest } from '../../../../core/manifest/schema.js';
import type { HttpApi } from '../../../platform/http/api.js';
import type { WorkbenchConfig } from '../workbench-settings.js';
import { isLoopbackUrl } from '../status/dev-status.js';
import type { JudgeService } from '../../../platform/judges/judge-service.js';

const Judge = z.object({
  id: z.string(),
  name: z.string(),
  aliases: z.array(z.string()).describe('Other names system_one.provider takes for it (the built-ins: "hosted", "selfhosted")'),
  hosting: z
    .enum(['hosted', 'self-hosted'])
    .describe('From its manifest\'s egress: self-hosted when it may call only loopback addresses (a judge server on this machine) or nothing; hosted otherwise'),
  state: z.string().describe('The plugin state; a judge that is not active fails every call with unavailable'),
  selected: z.boolean().describe('system_one.provider names it now'),
});
const JudgeList = z.object({
  provider: z.string().describe('system_one.provider as set: a plugin id or an alias'),
  judges: z.array(Judge).describe('Every judge plugin with a valid manifest, in any state, by id'),
});

/** Where a judge's calls go, as its manifest's egress allows: loopback only (or nowhere) is self-hosted. */
function hostingOf(manifest: Pick<Manifest, 'egress'>): 'hosted' | 'self-hosted' {
  const loopback = (entry: string) => {
    // `settings:<field>` is a URL set at run time: it may point anywhere.
    if (entry.startsWith('settings:')) return false;
    try {
      return isLoopbackUrl(new URL(`http://${entry}`));
    } catch {
      return false;
    }
  };
  return (manifest.egress ?? []).every(loopback) ? 'self-hosted' : 'hosted';
}

/** GET /api/judges: the judges system_one.provider can select (POST /api/config switches it). */
export function registerJudgeRoutes(api: HttpApi, deps: { judge: JudgeService; kernel: Kernel; config: WorkbenchConfig }): void {
  api.route(
    {
      method: 'get',
      path: '/api/judges',
      summary: 'The judge plugins system_one.provider can select, and the one it selects now',
      description: 'Switch with POST /api/config {"system_one": {"provider": "<id or alias>"}} (scope admin); the next call goes to the new judge.',
      tags: ['workbench: judgment'],
      access: { scope: 'judge:run' },
      responses: { 200: { description: 'Judges by id', schema: JudgeList } },
    },
    (): z.infer<typeof JudgeList> => {
      const { pluginId } = deps.judge.backend();
      const judges = deps.kernel
        .manifests()
        .filter((m) => m.provides.some((p) => p.kind === 'judge'))
        .sort((a, b) => a.id.localeCompare(b.id))
        .map((m) => ({ id: m.id, name: m.name, aliases: m.aliases ?? [], hosting: hostingOf(m), state: deps.kernel.stateOf(m.id), selected: m.id === pluginId }));
      return { provider: deps.config.get('system_one.provider'), judges };
    },
  );
}
