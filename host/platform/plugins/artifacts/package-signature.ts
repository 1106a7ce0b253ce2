import { createHash, createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { PackageProblem, type PackageSignature, type PluginPackage } from './plugin-package.js';

/** `SHA256:<base64, unpadded>` of a public key's SPKI DER: how a signer is named and trusted. */
export function keyFingerprint(spkiDer: Buffer): string {
  return `SHA256:${createHash('sha256').update(spkiDer).digest('base64').replace(/=+$/, '')}`;
}

function spkiOf(key: KeyObject): Buffer {
  return key.export({ type: 'spki', format: 'der' });
}

/** Signs a package digest with an Ed25519 private key (PEM): what `plugins sign` adds as signature.json. */
export function signDigest(digest: string, privateKeyPem: string): PackageSignature {
  let key: KeyObject;
  try {
    key = createPrivateKey(privateKeyPem);
  } catch (err) {
    throw new Error(`not a private key in PEM: ${(err as Error).message}`);
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`the key is ${key.asymmetricKeyType ?? 'not asymmetric'}; packages are signed with Ed25519`);
  const spki = spkiOf(createPublicKey(key));
  return {
    algorithm: 'ed25519',
    digest,
    public_key: spki.toString('base64'),
    fingerprint: keyFingerprint(spki),
    signature: sign(null, Buffer.from(digest, 'utf8'), key).toString('base64'),
  };
}

export type SignatureState = { state: 'unsigned' } | { state: 'signed'; fingerprint: string };

/**
 * Checks a package's signature: over this package's digest, by the key it names. A signature that
 * does not verify (or is over another digest) is tampering, not a missing signature.
 */
export function checkSignature(pkg: PluginPackage): SignatureState {
  const sig = pkg.signature;
  if (!sig) return { state: 'unsigned' };
  if (sig.digest !== pkg.digest) throw new PackageProblem('package_tampered', `the signature is over ${sig.digest}, not this package's digest ${pkg.digest}`);
  let key: KeyObject;
  try {
    key = createPublicKey({ key: Buffer.from(sig.public_key, 'base64'), format: 'der', type: 'spki' });
  } catch {
    throw new PackageProblem('package_tampered', 'the signature names a public key that cannot be read');
  }
  const fingerprint = keyFingerprint(spkiOf(key));
  if (key.asymmetricKeyType !== 'ed25519' || fingerprint !== sig.fingerprint) throw new PackageProblem('package_tampered', 'the signature\'s key and fingerprint disagree');
  if (!verify(null, Buffer.from(pkg.digest, 'utf8'), key, Buffer.from(sig.signature, 'base64'))) throw new PackageProblem('package_tampered', 'the signature does not verify against the package digest');
  return { state: 'signed', fingerprint };
}

/**
 * The fingerprints of PLUGIN_TRUSTED_KEYS: public keys as PEM blocks, base64 SPKI DER (what
 * `plugins verify` prints) or `SHA256:` fingerprints, separated by commas or white space.
 */
export function trustedFingerprints(setting: string | undefined): Set<string> {
  const out = new Set<string>();
  let rest = setting ?? '';
  for (const pem of rest.match(/-----BEGIN PUBLIC KEY-----[\s\S]*?-----END PUBLIC KEY-----/g) ?? []) {
    out.add(keyFingerprint(spkiOf(createPublicKey(pem))));
    rest = rest.replace(pem, ' ');
  }
  for (const entry of rest.split(/[\s,]+/).filter(Boolean)) {
    if (entry.startsWith('SHA256:')) out.add(entry.replace(/=+$/, ''));
    else out.add(keyFingerprint(spkiOf(createPublicKey({ key: Buffer.from(entry, 'base64'), format: 'der', type: 'spki' }))));
  }
  return out;
}
