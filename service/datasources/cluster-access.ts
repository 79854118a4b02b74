/**
 * Where `cluster/resources` finds the Kubernetes API and how it proves who it is: the service's
 * `service.datasources.cluster` settings, which default to what a pod has (the API server from
 * KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT, the service account's token and CA under
 * /var/run/secrets/kubernetes.io/serviceaccount). The token is read on every run: projected
 * service account tokens are rotated by the kubelet.
 */
import { readFile } from 'node:fs/promises'
import { RunError } from './types.js'

/** `service.datasources.cluster`. */
export interface ClusterSettings {
  /** https://host[:port]; empty: from the in-cluster environment. */
  api_server: string
  token_file: string
  ca_file: string
}

/** The in-cluster defaults (what a pod has). */
export const IN_CLUSTER: ClusterSettings = {
  api_server: '',
  token_file: '/var/run/secrets/kubernetes.io/serviceaccount/token',
  ca_file: '/var/run/secrets/kubernetes.io/serviceaccount/ca.crt',
}

/** What one run uses to reach the API server. */
export interface ClusterAccess {
  /** The API server's base URL, without a trailing slash. */
  server: string
  token: string
  ca: string
}

/** The API server's URL from the settings or the in-cluster environment. */
export function apiServerOf(settings: ClusterSettings, env: NodeJS.ProcessEnv = process.env): string {
  if (settings.api_server !== '') return settings.api_server.replace(/\/+$/, '')
  const host = env.KUBERNETES_SERVICE_HOST
  const port = env.KUBERNETES_SERVICE_PORT ?? '443'
  if (!host)
    throw new RunError(
      'cluster error: no API server: KUBERNETES_SERVICE_HOST is not set (the service does not run in a cluster) and service.datasources.cluster.api_server is empty',
    )
  return `https://${host.includes(':') ? `[${host}]` : host}:${port}`
}

async function readSetting(path: string, what: string, key: string): Promise<string> {
  try {
    return (await readFile(path, 'utf8')).trim()
  } catch (err) {
    const code = (err as { code?: string }).code ?? 'unreadable'
    throw new RunError(
      `cluster error: the ${what} ${path} cannot be read (${code}; service.datasources.cluster.${key})`,
    )
  }
}

/** The API server, token and CA for one run. @throws RunError naming what is missing. */
export async function clusterAccess(settings: ClusterSettings = IN_CLUSTER): Promise<ClusterAccess> {
  const server = apiServerOf(settings)
  const token = await readSetting(settings.token_file, 'service account token', 'token_file')
  if (token === '')
    throw new RunError(`cluster error: the service account token ${settings.token_file} is empty`)
  const ca = await readSetting(settings.ca_file, 'CA file', 'ca_file')
  return { server, token, ca }
}
