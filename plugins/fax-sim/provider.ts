import { NotAcceptedError, RejectedError, UncertainOutcomeError, type FaxProvider, type PluginLogger } from 'switchboard/sdk';
import { providerStatus } from 'switchboard/sdk/fax';
import { scenarioFor } from './scenarios.js';
import { wordOf, type SimFax, type SimulatedFaxes } from './simulated-faxes.js';
import { lineFailureOf, mapSimStatus } from './status-words.js';

const PDF_MAGIC = Buffer.from('%PDF-');

/**
 * A lookup this long after a send began finds the fax if the simulator took it (the host resends
 * one it does not find). The simulator stores a fax within a quarter of it from the call, or refuses
 * it; the host calls within half of it, so the store's write has the last quarter.
 */
export const LOOKUP_CERTAIN_AFTER_MS = 5_000;

/** The fax's status at `at` (now; a send answers with the one at acceptance). */
function statusOf(fax: SimFax, at = Date.now()) {
  const { word, error } = wordOf(fax, at);
  return providerStatus(mapSimStatus(word), { providerSid: fax.sid, pages: word === 'delivered' ? fax.pages : undefined, error, raw: word, lineFailure: lineFailureOf(word) });
}

/** The simulator as a fax provider: takes the PDF like an upload, plays the number's scenario. */
export function createFaxSim(faxes: SimulatedFaxes, logger: PluginLogger): FaxProvider {
  return {
    pushesResults: true,
    lookupCertainAfterMs: LOOKUP_CERTAIN_AFTER_MS,

    async send(request) {
      const called = Date.now();
      let pdf: Buffer;
      try {
        pdf = await request.document.read();
      } catch (err) {
        throw new NotAcceptedError(`could not read the document of job ${request.jobId}`, undefined, { cause: err });
      }
      if (!pdf.subarray(0, PDF_MAGIC.length).equals(PDF_MAGIC)) throw new RejectedError('the simulated provider takes PDF documents only');
      const scenario = scenarioFor(request.to);
      if (Date.now() - called > LOOKUP_CERTAIN_AFTER_MS / 4) throw new NotAcceptedError('simulated: the document came too late to be accepted within the lookup guarantee');
      const fax = await faxes.accept({ jobId: request.jobId, to: request.to, pages: request.document.pages, callbackUrl: request.callbackUrl }, scenario);
      logger.info('simulated fax accepted', { jobId: request.jobId, providerSid: fax.sid, scenario, attempt: fax.attempt });
      if (scenario === 'answer-lost') throw new UncertainOutcomeError('simulated: the submit timed out after the fax was sent (the provider has it)');
      return { ...statusOf(fax, fax.acceptedAt), providerSid: fax.sid };
    },

    async status(ref) {
      const fax = await faxes.find(ref);
      return fax ? statusOf(fax) : null;
    },

    async cancel(ref) {
      const fax = await faxes.find(ref);
      if (fax) await faxes.cancel(fax);
    },
  };
}
