import { publicBaseUrl } from '../../platform/http/public-url.js';
import { defineSurface } from '../../platform/gateway/surface.js';
import { ArtifactCleanup } from './cleanup/artifact-cleanup.js';
import { MediaDeletion } from './cleanup/media-deletion.js';
import { registerMediaDeletionRoutes } from './cleanup/media-deletion-routes.js';
import { faxBackendCheck } from './dispatch/backend-readiness.js';
import { FaxDispatcher } from './dispatch/dispatcher.js';
import { faxConditions, providerLeftActiveCondition } from './dispatch/fax-conditions.js';
import { applyPluginStatusEvents } from './dispatch/plugin-status-events.js';
import { FaxReconciler } from './dispatch/reconciler.js';
import { DocumentPool, ghostscriptVersion } from './documents/index.js';
import { pdfRendererCheck } from './dispatch/renderer-readiness.js';
import { InboundReceiver } from './inbound/inbound-receiver.js';
import { registerInboundRoutes } from './inbound/inbound-routes.js';
import { InboundSinkDeliveries } from './inbound-sinks/sink-delivery.js';
import { registerInboundSinkRoutes } from './inbound-sinks/inbound-sink-routes.js';
import { registerMailboxRoutes } from './mailboxes/mailbox-routes.js';
import { MailboxStore, mailboxFor } from './mailboxes/mailbox-store.js';
import { InboundService } from './inbound/inbound-service.js';
import { InboundStore, type InboundRow } from './inbound/inbound-store.js';
import { registerAdminJobRoutes } from './jobs/admin-job-routes.js';
import { DocumentTokens } from './jobs/document-tokens.js';
import { registerFaxRoutes } from './jobs/fax-routes.js';
import { registerCancelResendRoutes } from './jobs/cancel-resend-routes.js';
import { JobCancel } from './jobs/job-cancel.js';
import { registerApprovalRoutes } from './jobs/approval-routes.js';
import { FaxApprovals } from './jobs/fax-approvals.js';
import { FaxService } from './jobs/fax-service.js';
import { SubmitGroupCommit } from './jobs/submit-group-commit.js';
import { JobDocuments } from './jobs/job-documents.js';
import { FaxJobStore } from './jobs/job-store.js';
import { JobUpdates } from './jobs/job-updates.js';
import { IdempotencyKeys } from './jobs/idempotency-keys.js';
import { RecurringTask } from '../../platform/runtime/recurring-task.js';
import { CallbackReceiver } from './webhooks/callback-receiver.js';
import { registerWebhookAliasRoutes, registerWebhookRoutes } from './webhooks/webhook-routes.js';
import { FAX_HTTP_ERRORS } from './http/fax-http-errors.js';
import { DeliveryOutbox } from './status-events/delivery-outbox.js';
import { EventDelivery } from './status-events/event-delivery.js';
import { FaxEventPublisher } from './status-events/event-publisher.js';
import { EventMarkers, StatusEventSweep } from './status-events/event-sweep.js';
import { registerStatusEventRoutes } from './status-events/status-event-routes.js';
import { SubscriptionStore } from './status-events/subscription-store.js';
import { FAX_MIGRATIONS } from './fax-migrations.js';
import { FAX_KEY_LIMITS, MAILBOX_LIMIT } from './mailboxes/mailbox-limit.js';
import { FAX_SETTINGS } from './fax-settings.js';
import type { FaxTables } from './fax-tables.js';

/** The fax gateway: jobs, dispatch, documents, inbound faxes, provider webhooks, artifact cleanup. */
export const faxSurface = defineSurface<FaxTables>()({
  name: 'fax',
  errors: FAX_HTTP_ERRORS,
  settings: FAX_SETTINGS,
  migrations: FAX_MIGRATIONS,
  keyLimits: FAX_KEY_LIMITS,
  async install(platform) {
    const { api, kernel, audit, logger, readiness, config, database } = platform;
    const tokens = await DocumentTokens.load(database.db, platform.secrets);
    const store = new FaxJobStore(database.db, database.dialect);
    const documents = new JobDocuments({ kernel, config, tokens });
    const outbox = new DeliveryOutbox(database.db, database.dialect);
    const subscriptions = new SubscriptionStore(database.db, database.dialect === 'postgres', platform.secrets);
    await subscriptions.resealStored();
    const eventDelivery = new EventDelivery({ outbox, subscriptions, config, outbound: platform.outbound, logger });
    const markers = new EventMarkers(database.db);
    const ownerMailboxes = async (owner: string) => (await platform.auth.keys.get(owner))?.limits[MAILBOX_LIMIT];
    const events = new FaxEventPublisher({ outbox, subscriptions, markers, logger, onEnqueued: () => eventDelivery.wake(), ownerMailboxes });
    const updates = new JobUpdates({ store, audit, logger, events, retryPolicy: () => ({ maxAttempts: config.get('FAX_RETRY_MAX_ATTEMPTS'), delaySeconds: config.get('FAX_RETRY_DELAY_SECONDS') }) });
    let dispatcher: FaxDispatcher | undefined;
    const idempotencyKeys = new IdempotencyKeys(database.db);
    const groupCommit = new SubmitGroupCommit({ store, withStorage: (fn) => documents.withStorage(fn), waitMs: () => config.get('FAX_GROUP_COMMIT_MS') });
    const documentPool = new DocumentPool({
      threads: () => config.get('FAX_DOCUMENT_THREADS'),
      budget: () => ({ baseMs: config.get('FAX_DOCUMENT_BUDGET_MS'), msPerMb: config.get('FAX_DOCUMENT_BUDGET_MS_PER_MB') }),
    });
    const service = new FaxService({ store, kernel, config, documents, documentPool, audit, logger, idempotencyKeys, groupCommit, onSubmitted: () => dispatcher?.wake(), onQueued: events.queued });
    dispatcher = new FaxDispatcher({ store, kernel, documents, updates, config, audit, logger, events });
    const reconciler = new FaxReconciler({ store, kernel, config, updates, logger, leases: platform.leases });
    applyPluginStatusEvents({ kernel, store, updates, logger });
    readiness.add('fax_backend', () => faxBackendCheck({ config, kernel, service }));
    readiness.add('storage', () => {
      const id = config.get('STORAGE_BACKEND');
      return kernel.isActive('storage', id) ? { ok: true, info: { backend: id } } : { ok: false, detail: `storage backend "${id}" is not active (state: ${kernel.stateOf(id)})` };
    });
    readiness.add('pdf_renderer', () => pdfRendererCheck({ config, kernel, version: ghostscriptVersion }));
    registerFaxRoutes(api, { service, documents, store, kernel, config, tokens, audit, reconciler, outbound: platform.outbound, tmpDir: platform.tmpDir });
    registerCancelResendRoutes(api, { store, service, cancel: new JobCancel({ store, kernel, audit, onCanceled: events.finished, lookUp: (row) => reconciler.check(row) }) });
    const approvals = new FaxApprovals({ db: database.db, dialect: database.dialect, withStorage: (fn) => documents.withStorage(fn), ttlSeconds: () => config.get('MCP_APPROVAL_TTL_SECONDS'), perKeyLimit: () => config.get('FAX_APPROVALS_PENDING_PER_KEY') });
    registerApprovalRoutes(api, { approvals, service, store, config, audit, tmpDir: platform.tmpDir, documentPool });
    const inboundStore = new InboundStore(database.db);
    const mailboxes = new MailboxStore(database.db);
    const mailboxOf = async (calledNumber: string | undefined) => mailboxFor(await mailboxes.list(), calledNumber, config.get('INBOUND_DEFAULT_MAILBOX'));
    const sinkOutbox = new DeliveryOutbox(database.db, database.dialect, 'sink');
    const sinkDeliveries = new InboundSinkDeliveries({ outbox: sinkOutbox, mailboxes, inbound: inboundStore, kernel, tokens, config, logger, metrics: platform.metrics });
    // The inbound fax's mark is cleared by events.inbound, after its sink deliveries are queued too:
    // a stop before either leaves it to the sweep (both are written with ids of their own, once).
    const onReceived = async (row: InboundRow, late?: { at: number }) => {
      await sinkDeliveries.enqueue(row);
      await events.inbound(row, late);
    };
    const eventSweep = new StatusEventSweep({ markers, events: { owedByJob: (row) => events.owedByJob(row), inbound: onReceived }, leases: platform.leases, logger });
    const inbound = new InboundService({ store: inboundStore, kernel, config, audit, logger, documentPool, mailboxOf, onReceived });
    registerMailboxRoutes(api, { mailboxes, config, audit });
    registerInboundSinkRoutes(api, { outbox: sinkOutbox, deliveries: sinkDeliveries, audit });
    registerInboundRoutes(api, { service: inbound, store: inboundStore, config, tokens, audit });
    const deletion = new MediaDeletion({ db: database.db, withStorage: (fn) => documents.withStorage(fn), audit });
    registerMediaDeletionRoutes(api, { deletion, store, inbound: inboundStore, config });
    const webhooks = {
      callbacks: new CallbackReceiver({ kernel, audit, store, updates }),
      inbound: new InboundReceiver({ kernel, audit, config, service: inbound }),
      publicBaseUrl: () => publicBaseUrl(config),
    };
    registerWebhookRoutes(api, webhooks);
    registerStatusEventRoutes(api, { subscriptions, outbox, delivery: eventDelivery, config, outbound: platform.outbound, audit });
    registerAdminJobRoutes(api, { store, documents, audit });
    platform.ports.provide('faxStatus', {
      jobsByStatus: () => store.countByStatus(),
      inboundCount: () => inboundStore.count(),
      rendererVersion: async () => (await ghostscriptVersion()) ?? null,
      settings: () => ({ backend: config.get('FAX_BACKEND'), inboundEnabled: config.get('INBOUND_ENABLED'), artifactTtlDays: config.get('ARTIFACT_TTL_DAYS') }),
    });
    platform.ports.addAlertConditions(faxConditions({ db: database.db, config }), providerLeftActiveCondition({ kernel }));
    const cleanup = new ArtifactCleanup({ db: database.db, kernel, config, audit, logger, tmpDir: platform.tmpDir, leases: platform.leases, approvals });
    // Expired Idempotency-Keys go on the cleanup's schedule, whether or not artifacts expire; one instance of a cluster sweeps.
    const keySweep = new RecurringTask({
      cadence: { everyMs: () => config.get('CLEANUP_INTERVAL_MINUTES') * 60_000 },
      task: platform.leases.exclusive('fax.idempotency-key-sweep', async () => {
        const removed = await idempotencyKeys.sweepExpired();
        if (removed) logger.info({ removed }, 'expired idempotency keys removed');
      }),
      onError: (err) => logger.warn({ err: (err as Error).message }, 'idempotency key sweep failed; next run retries'),
    });
    config.onChange((keys) => {
      if (keys.includes('CLEANUP_INTERVAL_MINUTES')) keySweep.reschedule();
    });
    // Alias paths come from the manifests the kernel's first scan loaded.
    platform.onPluginsLoaded(() =>
      registerWebhookAliasRoutes(api, {
        ...webhooks,
        kernel,
        onSkipped: (aliasPath, pluginId) => logger.warn({ path: aliasPath, plugin: pluginId }, 'webhook alias path clashes with a route of the host; not routed'),
      }),
    );
    platform.onStart(() => {
      dispatcher.start();
      reconciler.start();
      // Passes run while ARTIFACT_TTL_DAYS or INBOUND_RETENTION_DAYS is set (read at each pass).
      cleanup.start();
      keySweep.start();
      eventDelivery.start();
      eventSweep.start();
      sinkDeliveries.start();
    });
    platform.onStop('dispatcher', () => dispatcher.stop());
    platform.onStop('reconciler', () => reconciler.stop());
    platform.onStop('cleanup', () => cleanup.stop());
    platform.onStop('idempotency-key-sweep', () => keySweep.stop());
    platform.onStop('status-event-delivery', () => eventDelivery.stop());
    platform.onStop('status-event-sweep', () => eventSweep.stop());
    platform.onStop('inbound-sink-delivery', () => sinkDeliveries.stop());
    platform.onStop('document-pool', () => documentPool.close());
    return { store, service, approvals, documents, dispatcher, reconciler, cleanup, idempotencyKeys, inbound: { store: inboundStore, service: inbound, sinks: { outbox: sinkOutbox, deliveries: sinkDeliveries } }, statusEvents: { outbox, subscriptions, delivery: eventDelivery, publisher: events, sweep: eventSweep } };
  },
});

export type FaxSurface = Awaited<ReturnType<typeof faxSurface.install>>;
