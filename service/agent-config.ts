/**
 * What the service tells agents: the discovery document of a system (served inside its
 * discovery bundle) and the bootstrap configs (`assets/opa-config`, `assets/relay-config`),
 * all in OPA's configuration format with the service named `regent` at `{base}/v1`.
 */
import { stringify } from 'yaml'
import { overlay } from './data-tree.js'

/** The service name agents' configs use for this service. */
export const AGENT_SERVICE_NAME = 'regent'

/** The verification side of the bundle signing key, as agents configure it. */
export interface PublishedKey {
  keyId: string
  /** PEM public key (or the HMAC secret for HS* algorithms). */
  key: string
  algorithm: string
  scope?: string
}

/** What identifies a system in generated configs. */
export interface SystemIdentity {
  id: string
  type: string
  /** `deployment_parameters.discovery`: user overrides of the discovery document. */
  discoveryOverrides?: Record<string, unknown>
}

/** The bundle name (and resource below `/v1`) of a system's policy bundle. */
export function bundleName(systemId: string): string {
  return `systems/${systemId}`
}

function keysSection(key: PublishedKey | undefined): Record<string, unknown> | undefined {
  if (!key) return undefined
  return {
    [key.keyId]: { key: key.key, algorithm: key.algorithm, ...(key.scope ? { scope: key.scope } : {}) },
  }
}

function signingSection(key: PublishedKey | undefined): Record<string, unknown> | undefined {
  if (!key) return undefined
  return { keyid: key.keyId, ...(key.scope ? { scope: key.scope } : {}) }
}

/** Somewhere else than this service that serves the system's policy bundle (a bundle registry). */
export interface PolicyBundleSource {
  /** The service name in the discovered config. */
  service: string
  /** The service entry: `url` and `credentials` (never a secret value: agents bring their own). */
  config: Record<string, unknown>
  /** The bundle's resource below the service's URL. */
  resource: string
}

/**
 * The discovery document (`data.discovery` of the discovery bundle). As the service serves it, it
 * names no `services`, so agents keep the ones they booted with (pointing at the service or at a
 * relay). With `source` (the copy uploaded to a bundle registry) the policy bundle is read from
 * that service instead, which the document then defines.
 */
export function discoveryDocument(
  system: SystemIdentity,
  key?: PublishedKey,
  source?: PolicyBundleSource,
): Record<string, unknown> {
  const name = bundleName(system.id)
  const signing = signingSection(key)
  const keys = keysSection(key)
  const generated: Record<string, unknown> = {
    ...(source ? { services: { [source.service]: source.config } } : {}),
    bundles: {
      [name]: {
        service: source?.service ?? AGENT_SERVICE_NAME,
        resource: source?.resource ?? `/bundles/${name}`,
        persist: false,
        polling: { min_delay_seconds: 10, max_delay_seconds: 15 },
        ...(signing ? { signing } : {}),
      },
    },
    decision_logs: {
      service: AGENT_SERVICE_NAME,
      reporting: { min_delay_seconds: 10, max_delay_seconds: 15 },
    },
    status: { service: AGENT_SERVICE_NAME },
    default_decision: 'main/main',
    nd_builtin_cache: true,
    ...(keys ? { keys } : {}),
  }
  return overlay(generated, system.discoveryOverrides ?? {})
}

function labels(system: SystemIdentity): Record<string, string> {
  return { 'system-id': system.id, 'system-type': system.type }
}

/** The YAML config an OPA agent starts with: this service, its token, labels, discovery. */
export function opaConfigYaml(system: SystemIdentity, baseUrl: string, token: string): string {
  const config = {
    services: [{ name: AGENT_SERVICE_NAME, url: `${baseUrl}/v1`, credentials: { bearer: { token } } }],
    labels: labels(system),
    discovery: { name: 'discovery', prefix: `/systems/${system.id}`, service: AGENT_SERVICE_NAME },
  }
  return stringify(config)
}

/**
 * The YAML config a regent relay starts with for one system: OPA's format (services, the
 * system's bundle, decision logs and status to this service, labels, keys when bundles are
 * signed) plus a minimal `relay:` section for the relay's own settings.
 */
export function relayConfigYaml(
  system: SystemIdentity,
  baseUrl: string,
  token: string,
  key?: PublishedKey,
): string {
  const name = bundleName(system.id)
  const signing = signingSection(key)
  const keys = keysSection(key)
  const config = {
    services: [{ name: AGENT_SERVICE_NAME, url: `${baseUrl}/v1`, credentials: { bearer: { token } } }],
    labels: labels(system),
    bundles: {
      [name]: {
        service: AGENT_SERVICE_NAME,
        resource: `bundles/${name}`,
        polling: { min_delay_seconds: 10, max_delay_seconds: 20, long_polling_timeout_seconds: 30 },
        ...(signing ? { signing } : {}),
      },
    },
    ...(keys ? { keys } : {}),
    decision_logs: { service: AGENT_SERVICE_NAME },
    status: { service: AGENT_SERVICE_NAME },
    relay: {},
  }
  return stringify(config)
}
