/**
 * Where the discovery bundle uploaded to a bundle registry sends agents for the policy bundle:
 * the same bucket, at the system's `policy_path`, so an agent (or relay) that discovers its config
 * from the bucket never needs the service for policy. The agent signs its reads with its own
 * credentials (OPA's `s3_signing.environment_credentials`: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
 * AWS_REGION), never the service's upload keys.
 */
import type { SystemRow } from '../../store/service/index.js'
import type { PolicyBundleSource } from '../agent-config.js'
import { type BundleRegistryConfig, endpointOf } from './registry-config.js'
import { objectKey } from './registry-publisher.js'

/** The service name the registry's discovery bundle gives the bucket. */
export const REGISTRY_SERVICE_NAME = 'bundle-registry'

/** The bucket as the service that serves `system`'s policy bundle. */
export function registryPolicySource(system: SystemRow, config: BundleRegistryConfig): PolicyBundleSource {
  const s3 = config.distribution_s3
  return {
    service: REGISTRY_SERVICE_NAME,
    config: {
      url: `${endpointOf(s3)}/${s3.bucket}`,
      credentials: { s3_signing: { environment_credentials: {} } },
    },
    resource: objectKey(system, 'policy', config),
  }
}
