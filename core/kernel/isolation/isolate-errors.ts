import { AuthError, ConfigError, EgressDeniedError, NotAcceptedError, NotReadyError, RejectedError, StorageKeyError, StorageNotFoundError, UncertainOutcomeError, WebhookRejectedError } from '../../sdk/index.js';
import { OutboundAddressError } from '../egress.js';
import { TimeoutError } from '../generation.js';
import type { ErrorClasses } from './rpc-peer.js';
import { IsolationRefusedError } from './network-guard.js';
import { FileAccessRefusedError } from './file-guard.js';

/** The errors that keep their class across the boundary: what the host decides by (lifecycle, dispatch, webhooks). */
export const ISOLATE_ERROR_CLASSES: ErrorClasses = {
  NotReadyError,
  ConfigError,
  AuthError,
  EgressDeniedError,
  OutboundAddressError,
  NotAcceptedError,
  RejectedError,
  UncertainOutcomeError,
  WebhookRejectedError,
  StorageNotFoundError,
  StorageKeyError,
  TimeoutError,
  IsolationRefusedError,
  FileAccessRefusedError,
};
