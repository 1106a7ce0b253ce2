import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

/** What a sealed value starts with; the key's id follows, then the sealed bytes. */
const PREFIX = 'sb-sealed:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A stored secret that cannot be opened: sealed with a key this process was not given. */
export class SecretsKeyError extends Error {
  override name = 'SecretsKeyError';
}

interface Key {
  id: string;
  bytes: Buffer;
}

function keyOf(text: string): Key {
  // The key's id is public (stored beside each value): a hash of the derived key, never of the text alone.
  const bytes = Buffer.from(hkdfSync('sha256', text, 'switchboard', 'stored secrets v1', 32));
  return { id: createHash('sha256').update(bytes).digest('hex').slice(0, 12), bytes };
}

/**
 * Seals the secrets the gateway stores in its database (git credentials, webhook signing
 * secrets, the cluster's shared settings) with AES-256-GCM under SECRETS_KEY, so a copy of the
 * database alone (a dump, a backup, a replica) does not give them away. Without a key values are
 * stored as they come, as before; with one, plain values already stored are sealed at start
 * (`reseal`), and values sealed under SECRETS_KEY_PREVIOUS are sealed again under the new key.
 */
export class SecretSeal {
  private readonly current: Key | undefined;
  private readonly previous: Key | undefined;

  constructor(key: string | undefined, previousKey?: string) {
    this.current = key ? keyOf(key) : undefined;
    this.previous = previousKey ? keyOf(previousKey) : undefined;
  }

  /** True when new values are sealed. */
  get sealing(): boolean {
    return this.current !== undefined;
  }

  static isSealed(stored: string): boolean {
    return stored.startsWith(PREFIX);
  }

  /** The value to store: sealed under the current key, or as it is without one. */
  seal(plain: string): string {
    const key = this.current;
    if (!key) return plain;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key.bytes, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `${PREFIX}${key.id}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
  }

  /** The stored value's secret; a plain (never sealed) value is returned as it is. */
  open(stored: string): string {
    if (!SecretSeal.isSealed(stored)) return stored;
    const rest = stored.slice(PREFIX.length);
    const colon = rest.indexOf(':');
    const id = rest.slice(0, colon);
    const key = [this.current, this.previous].find((k) => k?.id === id);
    if (!key) {
      throw new SecretsKeyError(
        this.current
          ? `a stored secret is sealed with another key (id ${id}) than SECRETS_KEY (id ${this.current.id}); set SECRETS_KEY_PREVIOUS to the key it was sealed with`
          : `a stored secret is sealed (key id ${id}) and SECRETS_KEY is not set: start the gateway with the SECRETS_KEY it was sealed with`,
      );
    }
    const bytes = Buffer.from(rest.slice(colon + 1), 'base64url');
    if (bytes.length < IV_BYTES + TAG_BYTES) throw new SecretsKeyError(`a stored secret sealed with key ${id} is truncated`);
    const decipher = createDecipheriv('aes-256-gcm', key.bytes, bytes.subarray(0, IV_BYTES));
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    try {
      return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretsKeyError(`a stored secret sealed with key ${id} does not open: it was altered`);
    }
  }

  /**
   * The value to store again at start, or undefined when it is right as it is: a plain value
   * once a key is set, a value sealed under the previous key (opened for good when SECRETS_KEY
   * was unset and SECRETS_KEY_PREVIOUS names it). Throws when it cannot be opened.
   */
  reseal(stored: string): string | undefined {
    const plain = this.open(stored);
    if (!this.current) return SecretSeal.isSealed(stored) ? plain : undefined;
    if (SecretSeal.isSealed(stored) && stored.startsWith(`${PREFIX}${this.current.id}:`)) return undefined;
    return this.seal(plain);
  }
}
