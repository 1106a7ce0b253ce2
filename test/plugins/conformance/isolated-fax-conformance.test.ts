import { FAX_CONFORMANCE_TARGETS, runFaxConformance } from '../../support/fax-conformance.js';

// The fax suite with every built-in fax plugin in a child process, as PLUGIN_ISOLATION=<id>=process
// runs it: the document (a URL to fetch, or stored bytes read as a stream), the PBX plugins' own
// sockets and the answers all cross the boundary.
for (const target of FAX_CONFORMANCE_TARGETS) runFaxConformance(target, true);
