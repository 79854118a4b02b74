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
import { apiFailure, ClusterApi } from './cluster-api.js'
import { discoverResources, type ResourceType } from './cluster-discovery.js'
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

/** Items per list request. */
const PAGE_SIZE = '500'

/** Always stripped: what Secrets hold. */
const BUILT_IN_MASKS: Record<string, string[][]> = { secrets: [['data'], ['stringData']] }

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
    if (answer.status !== 200) throw apiFailure(`GET ${path}`, answer.status, answer.body)
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
