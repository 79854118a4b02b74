/**
 * Which resource types a Kubernetes API server serves, for `cluster/resources`: aggregated
 * discovery (Kubernetes 1.26+, two requests) where the server has it, else `/api/v1` and the
 * preferred version of every group under `/apis`. Only types that can be listed, without
 * sub-resources (`pods/status`) and without events.
 */
import { apiFailure, type ClusterApi } from './cluster-api.js'

/** One listable resource type the API serves. */
export interface ResourceType {
  /** The document's key: `pods`, `networking.k8s.io/ingresses`. */
  key: string
  /** `v1`, `networking.k8s.io/v1`. */
  groupVersion: string
  /** The path of its API: `/api/v1`, `/apis/networking.k8s.io/v1`. */
  apiPath: string
  name: string
  singular: string
  kind: string
  namespaced: boolean
}

/** History rather than state, and the busiest lists of a cluster. */
const NOT_READ = new Set(['events', 'events.k8s.io/events'])

interface ApiResource {
  name: string
  singularName?: string
  namespaced: boolean
  kind: string
  verbs?: string[]
}

async function resourcesOf(api: ClusterApi, groupVersion: string, apiPath: string): Promise<ResourceType[]> {
  const answer = await api.get(apiPath)
  // A group whose API is down (an aggregated API server) answers 503: its resources are skipped.
  if (answer.status === 503 || answer.status === 404) return []
  if (answer.status !== 200) throw apiFailure(`GET ${apiPath}`, answer.status, answer.body)
  const list = (answer.body as { resources?: ApiResource[] }).resources ?? []
  const group = groupVersion.includes('/') ? groupVersion.slice(0, groupVersion.indexOf('/')) : ''
  return list
    .filter((r) => !r.name.includes('/') && (r.verbs ?? []).includes('list'))
    .map((r) => ({
      key: group === '' ? r.name : `${group}/${r.name}`,
      groupVersion,
      apiPath,
      name: r.name,
      singular: r.singularName || r.kind.toLowerCase(),
      kind: r.kind,
      namespaced: r.namespaced,
    }))
    .filter((r) => !NOT_READ.has(r.key))
}

/**
 * Aggregated discovery (Kubernetes 1.26+): every group's resources in one answer, so a run spends
 * two requests on discovery instead of one per group. Older API servers answer the plain lists.
 */
const AGGREGATED = [
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
  'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList',
  'application/json',
].join(',')

interface DiscoveredGroup {
  metadata?: { name?: string }
  versions?: Array<{
    version: string
    freshness?: string
    resources?: Array<{
      resource: string
      responseKind?: { kind?: string }
      scope?: string
      singularResource?: string
      verbs?: string[]
    }>
  }>
}

/** The resource types of an APIGroupDiscoveryList: the first (preferred) version of each group. */
function fromAggregated(items: DiscoveredGroup[], core: boolean): ResourceType[] {
  const types: ResourceType[] = []
  for (const item of items) {
    const group = item.metadata?.name ?? ''
    const version = item.versions?.[0]
    if (!version || version.freshness === 'Stale') continue
    const groupVersion = group === '' ? version.version : `${group}/${version.version}`
    const apiPath = core ? `/api/${version.version}` : `/apis/${groupVersion}`
    for (const r of version.resources ?? []) {
      if (!(r.verbs ?? []).includes('list')) continue
      const kind = r.responseKind?.kind ?? r.resource
      types.push({
        key: group === '' ? r.resource : `${group}/${r.resource}`,
        groupVersion,
        apiPath,
        name: r.resource,
        singular: r.singularResource || kind.toLowerCase(),
        kind,
        namespaced: r.scope === 'Namespaced',
      })
    }
  }
  return types.filter((t) => !NOT_READ.has(t.key))
}

const isAggregated = (body: unknown): body is { items?: DiscoveredGroup[] } =>
  (body as { kind?: unknown } | undefined)?.kind === 'APIGroupDiscoveryList'

/** Every listable resource type: the core group's, then each group's preferred version's. */
export async function discoverResources(api: ClusterApi): Promise<ResourceType[]> {
  const core = await api.get('/api', {}, AGGREGATED)
  if (core.status !== 200) throw apiFailure('GET /api', core.status, core.body)
  const groups = await api.get('/apis', {}, AGGREGATED)
  if (groups.status !== 200) throw apiFailure('GET /apis', groups.status, groups.body)
  const types = isAggregated(core.body)
    ? fromAggregated(core.body.items ?? [], true)
    : await resourcesOf(api, 'v1', '/api/v1')
  if (isAggregated(groups.body)) return [...types, ...fromAggregated(groups.body.items ?? [], false)]
  const list =
    (groups.body as { groups?: Array<{ preferredVersion?: { groupVersion?: string } }> }).groups ?? []
  for (const group of list) {
    const groupVersion = group.preferredVersion?.groupVersion
    if (typeof groupVersion === 'string' && /^[a-z0-9.-]+\/[a-z0-9]+$/i.test(groupVersion))
      types.push(...(await resourcesOf(api, groupVersion, `/apis/${groupVersion}`)))
  }
  return types
}
