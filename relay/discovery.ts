/**
 * Discovery: the relay serves the discovery bundle like any bundle, and also reads it, as the
 * Styra Local Plane does, to learn which bundles its agents will ask for next. A relay booted
 * with only `discovery` therefore ends up pulling `bundles/systems/<id>` too.
 *
 * NOTE(relay): only discovery bundles whose configuration is data (`data.json`, the shape DAS
 * and regent's service produce) are read; a bundle that computes its config with Rego policies
 * is still relayed byte for byte, but the relay cannot learn its bundles and says so. The
 * discovered `services` are never used (agents keep the boot config's, pointing at the relay);
 * if the discovered config names services, agents would bypass the relay, which is warned about.
 */
import type { Logger } from 'pino'
import { bundleTarget, type Target, TargetError } from '../plugins/bundle/targets.js'
import type { VerifiedBundle } from '../plugins/bundle/verify.js'
import { bundleSchema, type RelayConfig } from './config.js'

/** What discovery needs from the relay: adding and removing pulled targets. */
export interface DiscoveryHost {
  add(target: Target): Promise<void>
  remove(resource: string): Promise<void>
}

/** Learns bundles from each promoted discovery bundle. */
export class DiscoveredBundles {
  private readonly learned = new Map<string, string>() // bundle name -> resource

  constructor(
    private readonly config: RelayConfig,
    private readonly host: DiscoveryHost,
    private readonly logger: Logger,
  ) {}

  /** The path of the discovery decision inside `data` (OPA: `discovery.decision`, else the name). */
  decisionPath(): string[] {
    const discovery = this.config.discovery
    const decision = discovery?.decision ?? discovery?.name ?? 'discovery'
    return decision.split(/[/.]/).filter(Boolean)
  }

  /** Reads the discovered config of a verified discovery bundle and adjusts the pulled bundles. */
  async apply(verified: VerifiedBundle): Promise<void> {
    const log = this.logger.child({ kind: 'discovery' })
    const discovered = lookup(verified.bundle.data, this.decisionPath())
    if (!isObject(discovered)) {
      const why =
        verified.bundle.modules.length > 0 ? 'it computes its config with policies' : 'it has no config there'
      log.warn({ decision: this.decisionPath().join('/') }, `cannot read the discovered config: ${why}`)
      return
    }
    if (discovered.services !== undefined) {
      log.warn(
        { services: Object.keys(isObject(discovered.services) ? discovered.services : {}) },
        'discovered config names services: agents would send traffic there, bypassing the relay',
      )
    }
    const bundles = isObject(discovered.bundles) ? discovered.bundles : {}
    const services = Object.keys(this.config.services)
    const wanted = new Map<string, Target>()
    for (const [name, raw] of Object.entries(bundles)) {
      // The boot config wins on conflicts, as in OPA.
      if (this.config.bundles[name]) continue
      const parsed = bundleSchema.safeParse(raw)
      if (!parsed.success) {
        log.warn({ bundle: name, err: parsed.error.issues[0]?.message }, 'discovered bundle config ignored')
        continue
      }
      try {
        const maxInflated = this.config.relay.bundles.max_inflated_bytes
        wanted.set(name, bundleTarget(name, parsed.data, services, this.config.keys, false, maxInflated))
      } catch (err) {
        if (!(err instanceof TargetError)) throw err
        log.warn({ bundle: name, err: err.message }, 'discovered bundle config ignored')
      }
    }
    for (const [name, resource] of this.learned) {
      if (wanted.get(name)?.resource === resource) continue
      await this.host.remove(resource)
      this.learned.delete(name)
      log.info({ bundle: name }, 'bundle no longer discovered; stopped pulling it')
    }
    for (const [name, target] of wanted) {
      if (this.learned.has(name)) continue
      this.learned.set(name, target.resource)
      await this.host.add(target)
      log.info({ bundle: name, resource: target.resource }, 'bundle discovered; pulling it')
    }
  }
}

function lookup(data: Record<string, unknown>, path: string[]): unknown {
  let node: unknown = data
  for (const key of path) {
    if (!isObject(node)) return undefined
    node = node[key]
  }
  return node
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}
