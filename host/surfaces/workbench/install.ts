import { pingDatabase } from '../../platform/db/database.js';
import { defineSurface } from '../../platform/gateway/surface.js';
import type { CodeSearchPort } from '../../platform/ports/code-search.js';
import { registerAccountingRoutes } from './accounting/accounting-routes.js';
import { accountingConditions } from './alerts/conditions/accounting-conditions.js';
import { SchemaProposals } from './accounting/schema-proposal.js';
import { AlertDelivery } from './alerts/alert-delivery.js';
import { AlertEngine } from './alerts/alert-engine.js';
import { AlertOutbox } from './alerts/alert-outbox.js';
import { registerAlertRoutes } from './alerts/alert-routes.js';
import { AlertTargets } from './alerts/alert-targets.js';
import { builtInDefaultOf } from '../../platform/plugins/built-in-manifests.js';
import { judgeConditions } from './alerts/conditions/judge-conditions.js';
import { registerContainerRoutes } from './containers/container-routes.js';
import { registerJudgeRoutes } from './judges/judge-routes.js';
import { registerLabRoutes } from './lab/lab-routes.js';
import { LabRuns } from './lab/lab-runs.js';
import { registerDevStatusRoute } from './status/dev-status.js';
import { registerWorkbenchReadyRoute } from './status/ready-route.js';
import { WORKBENCH_HTTP_ERRORS } from './http/workbench-http-errors.js';
import { WORKBENCH_MIGRATIONS } from './workbench-migrations.js';
import { WORKBENCH_SETTINGS } from './workbench-settings.js';
import type { WorkbenchTables } from './workbench-tables.js';

/** The workbench: judges and the lab, containers, dev status and readiness, run accounting, alerts. */
export const workbenchSurface = defineSurface<WorkbenchTables>()({
  name: 'workbench',
  errors: WORKBENCH_HTTP_ERRORS,
  settings: WORKBENCH_SETTINGS,
  migrations: WORKBENCH_MIGRATIONS,
  async install(platform) {
    const { api, kernel, audit, logger, metrics, ports, config, database } = platform;
    // Code search is another surface: reached through its port when a route names a corpus.
    const codeSearch = (): CodeSearchPort => ports.require('codeSearch');
    const accounting = platform.runAccounting;
    registerAccountingRoutes(api, { accounting, proposals: new SchemaProposals({ accounting, config, codeSearch, outbound: platform.outbound }), codeSearch, audit, config });
    registerContainerRoutes(api, { config, audit });
    registerDevStatusRoute(api, { config, packageRoot: platform.root });
    const judge = platform.judges;
    registerJudgeRoutes(api, { judge, kernel, config });
    registerLabRoutes(api, { runs: new LabRuns({ db: database.db, judge }), config });
    registerWorkbenchReadyRoute(api, { judge, pingDatabase: () => pingDatabase(database.db) });
    ports.addAlertConditions(judgeConditions({ judge, config }), accountingConditions({ db: platform.database.db, config }));
    const outbox = new AlertOutbox(database.db, database.dialect);
    // Each WEBHOOK_TARGETS URL is a kernel-managed instance of the default alert sink, declared now and on every change.
    const targets = new AlertTargets({ config, kernel, sinkId: builtInDefaultOf('alert-sink') });
    void targets.sync();
    const offTargets = config.onChange((keys) => {
      if (keys.includes('WEBHOOK_TARGETS')) void targets.sync();
    });
    const delivery = new AlertDelivery({ outbox, config, kernel, logger, metrics });
    const engine = new AlertEngine({
      db: database.db,
      outbox,
      config,
      logger,
      metrics,
      leases: platform.leases,
      sources: ports.alertConditions(),
      targets: () => targets.ids(),
      onEnqueued: () => delivery.wake(),
    });
    registerAlertRoutes(api, { engine, outbox, targets, config, audit, wake: () => delivery.wake() });
    platform.onStart(() => {
      delivery.start();
      engine.start();
    });
    platform.onStop('alert engine', () => engine.stop());
    platform.onStop('alert delivery', () => delivery.stop());
    platform.onStop('alert targets', offTargets);
    return { judge, alerts: { engine, delivery, outbox, targets } };
  },
});

export type WorkbenchSurface = Awaited<ReturnType<typeof workbenchSurface.install>>;
