import { integer } from '../../../platform/config/model/field-kinds.js';

/** Configuration keys of run accounting's own routes (the ledger and prices are the LLM gateway's: host/platform/config/model/llm.ts). */
export const AccountingKeys = {
  SCHEMA_PROPOSAL_RPM: integer(1).default(6).describe('Calls per minute, per API key (or client address), of POST /api/index/{corpus_id}/schema-proposal: each is an LLM call. Concurrent calls for one corpus share one proposal.'),
};
