/**
 * Targets: the bundles (and the discovery bundle) the relay pulls and serves, resolved from the
 * OPA-format config the way an OPA agent resolves them: the default resource `bundles/<name>`,
 * a service inferred only when there is exactly one, slashes trimmed from resources.
 */
import type { VerificationConfig } from '../../core/bundle/index.js'
import type {
  BundleConfig,
  DiscoveryConfig,
  KeyConfig,
  PollingConfig,
  SigningConfig,
  UpstreamConfig,
} from '../config.js'

/** Whether a target is a policy bundle or the discovery bundle. */
export type TargetKind = 'bundle' | 'discovery'

/** One thing the relay pulls from upstream and serves to agents. */
export interface Target {
  kind: TargetKind
  /** The bundle name (`bundles.<name>`) or the discovery name. */
  name: string
  /** The service it is pulled from (a key of `services`). */
  service: string
  /** The resource without leading or trailing slashes; agents fetch `GET /v1/<resource>`. */
  resource: string
  /** Delays in seconds; OPA's defaults 60/120 when the config gives none. */
  minDelaySeconds: number
  maxDelaySeconds: number
  longPollingTimeoutSeconds?: number
  /** Largest size of one file in the bundle, and of the download. */
  sizeLimitBytes: number
  /** Largest inflated size of the whole bundle (`relay.bundles.max_inflated_bytes`); core's default when unset. */
  maxInflatedBytes?: number
  /**
   * How to verify: undefined when neither keys nor a `signing` block are configured. `required`
   * is true with a `signing` block: an unsigned bundle is then refused even without a key id.
   */
  verification?: { config: VerificationConfig; signatureRequired: boolean }
  /** `--skip-verify` of `regent run`: signatures are neither required nor checked. */
  skipVerification?: boolean
  /** Counted for readiness: false for bundles learned from discovery after start. */
  required: boolean
}

/** A config that names things that do not fit together; the message names the key. */
export class TargetError extends Error {}

/** Trims leading and trailing slashes, as OPA's rest client does with resource paths. */
export function normaliseResource(resource: string): string {
  return resource.replace(/^\/+|\/+$/g, '')
}

/** All targets of a config, in config order, discovery first. */
export function resolveTargets(config: UpstreamConfig, maxInflatedBytes?: number): Target[] {
  const services = Object.keys(config.services)
  const targets: Target[] = []
  if (config.discovery) {
    targets.push({ ...discoveryTarget(config.discovery, services, config.keys), maxInflatedBytes })
  }
  for (const [name, bundle] of Object.entries(config.bundles)) {
    targets.push(bundleTarget(name, bundle, services, config.keys, true, maxInflatedBytes))
  }
  const seen = new Map<string, string>()
  for (const t of targets) {
    const other = seen.get(t.resource)
    if (other) throw new TargetError(`${describe(t)}: resource "${t.resource}" is also used by ${other}`)
    seen.set(t.resource, describe(t))
  }
  return targets
}

/** The target of `bundles.<name>`; also used for bundles learned from a discovery bundle. */
export function bundleTarget(
  name: string,
  bundle: BundleConfig,
  services: string[],
  keys: Record<string, KeyConfig>,
  required: boolean,
  maxInflatedBytes?: number,
): Target {
  const where = `bundles.${name}`
  const resource = normaliseResource(bundle.resource ?? `bundles/${name}`)
  if (/^file:/i.test(bundle.resource ?? '')) {
    throw new TargetError(
      `${where}.resource: file:// bundles are local to an agent; the relay cannot serve them`,
    )
  }
  return {
    kind: 'bundle',
    name,
    service: pickService(where, bundle.service, services),
    resource,
    ...delays(bundle.polling),
    sizeLimitBytes: bundle.size_limit_bytes,
    maxInflatedBytes,
    verification: verificationOf(bundle.signing, keys),
    required,
  }
}

function discoveryTarget(
  discovery: DiscoveryConfig,
  services: string[],
  keys: Record<string, KeyConfig>,
): Target {
  const name = discovery.name ?? 'discovery'
  // Legacy form: `prefix` (default `bundles`) + `name`.
  const resource = normaliseResource(discovery.resource ?? `${discovery.prefix ?? 'bundles'}/${name}`)
  return {
    kind: 'discovery',
    name,
    service: pickService('discovery', discovery.service, services),
    resource,
    ...delays(discovery.polling),
    sizeLimitBytes: discovery.size_limit_bytes,
    verification: verificationOf(discovery.signing, keys),
    required: true,
  }
}

function pickService(where: string, named: string | undefined, services: string[]): string {
  if (named !== undefined) {
    if (!services.includes(named)) {
      throw new TargetError(
        `${where}.service: no service named "${named}" (services: ${services.join(', ') || 'none'})`,
      )
    }
    return named
  }
  if (services.length === 1) return services[0]!
  throw new TargetError(
    services.length === 0
      ? `${where}: no services are configured`
      : `${where}.service: required when several services are configured (${services.join(', ')})`,
  )
}

function delays(polling: PollingConfig | undefined) {
  return {
    minDelaySeconds: polling?.min_delay_seconds ?? 60,
    maxDelaySeconds: polling?.max_delay_seconds ?? 120,
    longPollingTimeoutSeconds: polling?.long_polling_timeout_seconds,
  }
}

/**
 * OPA's rules, one step stricter: with global keys but no `signing` block a signed bundle is
 * checked through its `kid` and an unsigned one passes (as OPA); with a `signing` block an
 * unsigned bundle is refused even when no key id is set (OPA would accept it).
 */
function verificationOf(
  signing: SigningConfig | undefined,
  keys: Record<string, KeyConfig>,
): Target['verification'] | undefined {
  if (!signing && Object.keys(keys).length === 0) return undefined
  const config: VerificationConfig = {
    keys: Object.fromEntries(
      Object.entries(keys).map(([id, k]) => [id, { key: k.key, algorithm: k.algorithm, scope: k.scope }]),
    ),
    keyId: signing?.keyid,
    scope: signing?.scope,
    excludeFiles: signing?.exclude_files ?? [],
  }
  return { config, signatureRequired: signing !== undefined }
}

function describe(t: Target): string {
  return t.kind === 'discovery' ? 'discovery' : `bundles.${t.name}`
}
