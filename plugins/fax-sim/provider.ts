import { NotAcceptedError, RejectedError, UncertainOutcomeError, type FaxProvider, type PluginLogger } from 'switchboard/sdk';
import { providerStatus } from 'switchboard/sdk/fax';
import { scenarioFor } from './scenarios.js';
import type { SimFax, SimulatedFaxes } from './simulated-faxes.js';
import { lineFailureOf, mapSimStatus } from './status-words.js';

const PDF_MAGIC = Buffer.from('%PDF-');

function statusOf(fax: SimFax) {
  return providerStatus(mapSimStatus(fax.word), { providerSid: fax.sid, pages: fax.word === 'delivered' ? fax.pages : undefined, error: fax.error, raw: fax.word, lineFailure: lineFailureOf(fax.word) });
}

/** The simulator as a fax provider: takes the PDF like an upload, plays the number's scenario. */
export function createFaxSim(faxes: SimulatedFaxes, logger: PluginLogger): FaxProvider {
  return {
    pushesResults: true,

    async send(request) {
      let pdf: Buffer;
      try {
        pdf = await request.document.read();
      } catch (err) {
        throw new NotAcceptedError(`could not read the document of job ${request.jobId}`, undefined, { cause: err });
      }
      if (!pdf.subarray(0, PDF_MAGIC.length).equals(PDF_MAGIC)) throw new RejectedError('the simulated provider takes PDF documents only');
      const scenario = scenarioFor(request.to);
      const fax = faxes.accept({ jobId: request.jobId, to: request.to, pages: request.document.pages, callbackUrl: request.callbackUrl }, scenario);
      logger.info('simulated fax accepted', { jobId: request.jobId, providerSid: fax.sid, scenario, attempt: fax.attempt });
      if (scenario === 'answer-lost') throw new UncertainOutcomeError('simulated: the submit timed out after the fax was sent (the provider has it)');
      return { ...statusOf(fax), providerSid: fax.sid };
    },

    async status(ref) {
      const fax = faxes.find(ref);
      return fax ? statusOf(fax) : null;
    },

    async cancel(ref) {
      const fax = faxes.find(ref);
      if (fax) faxes.cancel(fax);
    },
  };
}
