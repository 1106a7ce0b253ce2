import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './gateway.js';

/** One text of test/fixtures/secrets/fake-secrets.json and the fake secrets in it that must not survive masking. */
export interface SecretCase {
  name: string;
  text: string;
  secrets: string[];
}

const corpus = JSON.parse(readFileSync(path.join(ROOT, 'test/fixtures/secrets/fake-secrets.json'), 'utf8')) as { cases: SecretCase[]; pem: string };

/** Real-shaped fake secrets (seeded random, none real): token families, assignments, key blocks cut by windows. */
export const SECRET_CASES: readonly SecretCase[] = corpus.cases;
/** A whole fake RSA private key, long enough that the code index cuts it into several chunks. */
export const FAKE_PRIVATE_KEY: string = corpus.pem;
/** Ordinary code and prose naming credentials without holding any: masking must leave every line. */
export const ORDINARY_CODE: string = readFileSync(path.join(ROOT, 'test/fixtures/secrets/ordinary-code.txt'), 'utf8');
