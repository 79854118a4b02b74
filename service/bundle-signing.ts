/**
 * Signing of built bundles with the key configured under `service.bundles.signing`, and the
 * matching verification key that generated agent configs publish (the public key for RSA,
 * RSA-PSS and ECDSA; the shared secret itself for HMAC, as OPA's `keys` config needs it).
 */
import { createPrivateKey, createPublicKey } from 'node:crypto'
import { signBundle } from '../core/bundle/index.js'
import { readKeyFile } from '../core/key-files.js'
import type { BundleSigner } from './bundle-builder.js'
import type { ServiceSection } from './config.js'

type SigningConfig = NonNullable<ServiceSection['bundles']['signing']>

/**
 * The signer for `config`, with its key read and checked now so a bad key stops the start.
 * @throws Error naming the config key and the problem.
 */
export function createBundleSigner(config: SigningConfig): BundleSigner {
  let key: string
  if (config.key !== undefined) key = config.key
  else {
    key = readKeyFile(config.key_file!, 'service.bundles.signing.key_file')
  }
  const hmac = config.algorithm.startsWith('HS')
  let published: string
  if (hmac) published = key
  else {
    try {
      published = createPublicKey(createPrivateKey(key)).export({ type: 'spki', format: 'pem' }).toString()
    } catch (err) {
      throw new Error(
        `service.bundles.signing: the key is not a PEM private key usable for ${config.algorithm}: ${(err as Error).message}`,
      )
    }
  }
  const options = {
    key,
    algorithm: config.algorithm,
    keyId: config.key_id,
    ...(config.scope ? { scope: config.scope } : {}),
  }
  return {
    sign: (bundle) => signBundle(bundle, options),
    publishedKey: {
      keyId: config.key_id,
      key: published,
      algorithm: config.algorithm,
      ...(config.scope ? { scope: config.scope } : {}),
    },
  }
}
