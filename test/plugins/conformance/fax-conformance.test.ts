import { FAX_CONFORMANCE_TARGETS, runFaxConformance } from '../../support/fax-conformance.js';

/**
 * The SDK's fax conformance suite, run against every built-in fax plugin and the loopback fake
 * of its provider. A plugin that breaks the fax contract fails here whatever its own tests say.
 */
for (const target of FAX_CONFORMANCE_TARGETS) runFaxConformance(target);
