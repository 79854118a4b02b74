/**
 * Category `cluster/resources`: the state of a Kubernetes cluster's resources, read through the
 * API server's list endpoints (cluster-api.ts) with the service account of the service
 * (cluster-access.ts). Each run discovers the resource types the API serves (aggregated
 * discovery from `/api` and `/apis` where the server has it, else `/api/v1` and the preferred
 * version of every group under `/apis`), then lists every type that can be listed, 500 items a
 * page, following `metadata.continue`:
 *
 * - `namespaces` includes or excludes namespaces by name: a namespace named there follows its
 *   value, `*` sets the rule for every other namespace (default: included), `""` includes or
 *   excludes cluster-scoped resources (default: included). When `*` is false, only the namespaces
 *   named true are listed (one request per namespace), so an account allowed into those only works.
 * - `selectors` gives a field selector per resource group, passed to the API as `fieldSelector`.
 * - `masks` strips property paths per resource group (cluster-masks.ts); `*` leaves a group out.
 *
 * A group is named like the document's keys: `pods` for the core group, `<group>/<resource>`
 * otherwise (`networking.k8s.io/ingresses`); `masks` and `selectors` also accept the bare
 * resource name or its singular (`ingress`). Types the account may not list (403) are left out
 * rather than failing the run. Events are not read (they are history, not state), and Secrets
 * are read without their `data` and `stringData`.
 *
 * The document: group → namespace → name → resource for namespaced types, group → name →
 * resource for cluster-scoped ones; each resource with its `kind` and `apiVersion` filled in.
 */
import { z } from 'zod'
import { setOwn } from '../json-document.js'
import { clusterAccess } from './cluster-access.js'
import { ClusterApi, statusMessage } from './cluster-api.js'
import { masksWholeGroup, parseMaskPath, stripPath } from './cluster-masks.js'
import { bothOrNeitherFilter, common, poller, rateLimiter, regoFiltering } from './mixins.js'
import { defineCategory, type FetchContext, type Fetched, RunError } from './types.js'

const text = () => z.string({ error: 'expected a string' })

const maskPath = text().superRefine((path, ctx) => {
  try {
    parseMaskPath(path)
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: `expected a property path: ${(err as Error).message}` })
  }
})

const schema = z
  .strictObject({
    category: z.literal('cluster/resources'),
    ...common,
    // NOTE(datasources): the spec makes on_premises required and true here: the cluster is read from inside.
    on_premises: z.literal(true, { error: 'required: must be true (cluster/resources runs on premises)' }),
    ...rateLimiter,
    ...poller,
    ...regoFiltering,
    masks: z
      .record(text(), z.array(maskPath, { error: 'expected an array of property paths' }), {
        error: 'expected a map of resource group to property paths',
      })
      .optional(),
    namespaces: z
      .record(text(), z.boolean({ error: 'expected true or false' }), {
        error: 'expected a map of namespace to true/false',
      })
      .optional(),
    selectors: z
      .record(text(), text(), { error: 'expected a map of resource group to field selector' })
      .optional(),
  })
  .superRefine(bothOrNeitherFilter)

type ClusterConfig = z.output<typeof schema>

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

/** Items per list request. */
const PAGE_SIZE = '500'

/** History rather than state, and the busiest lists of a cluster. */
const NOT_READ = new Set(['events', 'events.k8s.io/events'])

/** Always stripped: what Secrets hold. */
const BUILT_IN_MASKS: Record<string, string[][]> = { secrets: [['data'], ['stringData']] }

interface ApiResource {
  name: string
  singularName?: string
  namespaced: boolean
  kind: string
  verbs?: string[]
}

function failed(what: string, status: number, body: unknown): RunError {
  if (status === 401)
    return new RunError(
      `auth error: the API server refused the service account token (401)${statusMessage(body)}`,
    )
  if (status === 403) return new RunError(`auth error: ${what} is forbidden (403)${statusMessage(body)}`)
  return new RunError(`cluster error: ${what} answered ${status}${statusMessage(body)}`)
}

async function resourcesOf(api: ClusterApi, groupVersion: string, apiPath: string): Promise<ResourceType[]> {
  const answer = await api.get(apiPath)
  // A group whose API is down (an aggregated API server) answers 503: its resources are skipped.
  if (answer.status === 503 || answer.status === 404) return []
  if (answer.status !== 200) throw failed(`GET ${apiPath}`, answer.status, answer.body)
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
  if (core.status !== 200) throw failed('GET /api', core.status, core.body)
  const groups = await api.get('/apis', {}, AGGREGATED)
  if (groups.status !== 200) throw failed('GET /apis', groups.status, groups.body)
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

/** The entry of `map` for the resource type (by key, name or singular), if any. */
function entryFor<T>(map: Record<string, T> | undefined, type: ResourceType): T | undefined {
  if (!map) return undefined
  for (const name of [type.key, type.name, type.singular]) if (Object.hasOwn(map, name)) return map[name]
  return undefined
}

/** Whether resources of namespace `ns` ("" for cluster-scoped) are kept. */
function namespaceIncluded(rules: Record<string, boolean> | undefined, ns: string): boolean {
  if (rules && Object.hasOwn(rules, ns)) return rules[ns]!
  if (ns === '') return true
  return rules?.['*'] ?? true
}

/** Every item of a list, page by page. */
async function listItems(
  api: ClusterApi,
  type: ResourceType,
  namespace: string | undefined,
  fieldSelector: string | undefined,
): Promise<unknown[] | undefined> {
  const path = `${type.apiPath}${namespace !== undefined ? `/namespaces/${encodeURIComponent(namespace)}` : ''}/${type.name}`
  const items: unknown[] = []
  let token: string | undefined
  do {
    const answer = await api.get(path, { limit: PAGE_SIZE, continue: token, fieldSelector })
    // Not allowed to list this type (or it vanished since discovery): it is left out.
    if (answer.status === 403 || answer.status === 404 || answer.status === 405) return undefined
    if (answer.status === 410)
      throw new RunError(
        `cluster error: the list of ${type.key} changed too much while it was paged (410); the next run reads it again`,
      )
    if (answer.status !== 200) throw failed(`GET ${path}`, answer.status, answer.body)
    const body = answer.body as { items?: unknown[]; metadata?: { continue?: string } }
    if (!Array.isArray(body.items)) throw new RunError(`cluster error: GET ${path} answered no items`)
    items.push(...body.items)
    const next = body.metadata?.continue || undefined
    if (next !== undefined && next === token)
      throw new RunError(`cluster error: GET ${path} answered the same continue token twice`)
    token = next
  } while (token !== undefined)
  return items
}

async function fetchCluster(config: ClusterConfig, ctx: FetchContext): Promise<Fetched> {
  const api = new ClusterApi(await clusterAccess(ctx.cluster), ctx)
  try {
    const types = await discoverResources(api)
    const rules = config.namespaces
    const onlyNamed = rules?.['*'] === false
    const named = Object.entries(rules ?? {})
      .filter(([ns, on]) => on && ns !== '' && ns !== '*')
      .map(([ns]) => ns)
      .sort()
    const content: Record<string, unknown> = {}
    for (const type of types) {
      const maskPaths = entryFor(config.masks, type) ?? []
      if (masksWholeGroup(maskPaths)) continue
      if (!type.namespaced && !namespaceIncluded(rules, '')) continue
      const masks = [...(BUILT_IN_MASKS[type.key] ?? []), ...maskPaths.map(parseMaskPath)]
      const selector = entryFor(config.selectors, type)
      let items: unknown[] | undefined
      if (type.namespaced && onlyNamed) {
        // Left out only when no named namespace may be listed.
        for (const ns of named) {
          const listed = await listItems(api, type, ns, selector)
          if (listed) items = [...(items ?? []), ...listed]
        }
      } else items = await listItems(api, type, undefined, selector)
      if (items === undefined) continue
      const group: Record<string, unknown> = {}
      for (const item of items) {
        const resource = item as { metadata?: { name?: string; namespace?: string } } & Record<
          string,
          unknown
        >
        const name = resource.metadata?.name
        if (typeof name !== 'string') continue
        const ns = type.namespaced ? (resource.metadata?.namespace ?? '') : ''
        if (type.namespaced && !namespaceIncluded(rules, ns)) continue
        resource.kind ??= type.kind
        resource.apiVersion ??= type.groupVersion
        for (const steps of masks) stripPath(resource, steps)
        let parent = group
        if (type.namespaced) {
          if (!Object.hasOwn(group, ns)) setOwn(group, ns, {})
          parent = group[ns] as Record<string, unknown>
        }
        setOwn(parent, name, resource)
      }
      setOwn(content, type.key, group)
    }
    return { content, size: api.bytes }
  } finally {
    await api.close()
  }
}

/** The `cluster/resources` category. */
export const clusterResourcesCategory = defineCategory({
  category: 'cluster/resources',
  schema,
  mode: 'poll',
  fetch: fetchCluster,
})
