import { renderScopeTable, withScopeTable } from '../platform/auth/scope-table.js';
import { runSectionGenerator } from './generated-section.js';
import { withThrowawayGateway } from './throwaway-gateway.js';

/** The route table of a gateway built on a throwaway DATA_DIR (nothing listens). */
const currentRoutes = () => withThrowawayGateway((gateway) => renderScopeTable(gateway.api.routes));

// `node dist/host/cli/scope-docs.js` prints the table; `--write <file>` updates it in place.
runSectionGenerator(import.meta.url, currentRoutes, (document, table) => withScopeTable(document, table));
