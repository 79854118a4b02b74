/**
 * Decides requests: finds the route row, resolves the resource, gathers the caller's grants
 * from an in-memory index and evaluates the authorization policy. The index is rebuilt when
 * grants change: at once after a write through this process (`changed()`), and, for writes by
 * other replicas, when the store's change counter differs from the one last loaded (read at
 * most once per `checkIntervalMs`).
 */
import { fromJS, type PreparedQuery, toJS } from '../../core/rego/index.js'
import type { GrantRepository, GrantRow } from '../../store/service/index.js'
import type { AuthorizationDecision, Principal } from '../types.js'
import { compileAuthorizationPolicy } from './policy.js'
import { isSharedSecretRoute, matchRoute, UNLISTED_ACTION } from './route-table.js'

/** A resource a request acts on. */
export interface Resource {
  kind: 'workspace' | 'system' | 'library'
  id: string
}

/** One request to decide. */
export interface AuthorizationRequest {
  method: string
  path: string
  /** The query parameters (the `system` parameter names resources of some routes). */
  query?: Record<string, string | undefined>
  /** Overrides the table's action (the token-refresh refinement). */
  action?: string
  /** The parsed body, for rows whose resource it names (see resourceInBody). */
  body?: unknown
}

/** A decision with what it was about (for messages and the permission check). */
export interface Decision extends AuthorizationDecision {
  action: string
  resources: Resource[]
  /** The roles the caller holds on the (last) resource. */
  roles: string[]
}

/** Bound on the decisions kept per principal (paths differ per system, not per poll). */
const MAX_DECISIONS_PER_PRINCIPAL = 256

const WORKSPACE: Resource = { kind: 'workspace', id: '' }

/** The grant fields the policy reads. */
interface PolicyGrant {
  id: string
  role: string
  resource_kind: string
  resource_id: string
  subject_kind: string
  subject_id: string
  claim_provider: string
  claim_key: string
  claim_value: string
}

interface GrantIndex {
  /** `token:<id>` / `user:<id>` → grants naming that subject. */
  bySubject: Map<string, PolicyGrant[]>
  /** Claim key → claim grants on that key. */
  byClaimKey: Map<string, PolicyGrant[]>
  byId: Map<string, PolicyGrant>
  /** Binding id → the resource it is on (bindings without subjects included). */
  bindingResources: Map<string, Resource>
}

function indexGrants(rows: GrantRow[]): GrantIndex {
  const index: GrantIndex = {
    bySubject: new Map(),
    byClaimKey: new Map(),
    byId: new Map(),
    bindingResources: new Map(),
  }
  for (const row of rows) {
    index.bindingResources.set(row.binding_id, resourceOf(row.resource_kind, row.resource_id))
    if (row.subject_kind === '') continue
    const grant: PolicyGrant = {
      id: row.id,
      role: row.role,
      resource_kind: row.resource_kind,
      resource_id: row.resource_id,
      subject_kind: row.subject_kind,
      subject_id: row.subject_id,
      claim_provider: row.claim_provider,
      claim_key: row.claim_key,
      claim_value: row.claim_value,
    }
    index.byId.set(grant.id, grant)
    const [map, key] =
      row.subject_kind === 'claim'
        ? [index.byClaimKey, row.claim_key]
        : [index.bySubject, `${row.subject_kind}:${row.subject_id}`]
    const list = map.get(key)
    if (list) list.push(grant)
    else map.set(key, [grant])
  }
  return index
}

/** A binding's resource: a system or a library, or the workspace for anything else. */
export function resourceOf(kind: unknown, id: unknown): Resource {
  if ((kind === 'system' || kind === 'library') && typeof id === 'string' && id !== '') return { kind, id }
  return WORKSPACE
}

function sameResource(a: Resource, b: Resource): boolean {
  return a.kind === b.kind && a.id === b.id
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

export interface AuthorizerOptions {
  /** How often (at most) to read the store's change counter; 0 reads it on every request. */
  checkIntervalMs?: number
  /** When false every request is allowed (the benchmark's baseline only). */
  enabled?: boolean
}

export class Authorizer {
  private readonly query: PreparedQuery = compileAuthorizationPolicy()
  private index: GrantIndex = indexGrants([])
  private loadedVersion: string | undefined
  private checkedAt = 0
  private loading: Promise<void> | undefined
  /** Bumped by changed(): a load that began before a change must not count as current. */
  private generation = 0
  /**
   * Decisions already taken for a token's principal (an agent polls the same path all day), by
   * request; replaced whenever the grant index is (changed(), reload), and a token write gives
   * a new principal object (service/auth.ts), so no decision outlives what it was made from.
   */
  private decisions = new WeakMap<Principal, Map<string, Decision>>()
  private readonly checkIntervalMs: number
  readonly enabled: boolean

  constructor(
    private readonly grants: GrantRepository,
    options: AuthorizerOptions = {},
  ) {
    this.checkIntervalMs = options.checkIntervalMs ?? 1000
    this.enabled = options.enabled ?? true
  }

  /** Marks the index stale (call after a grant write through this process). */
  changed(): void {
    this.generation++
    this.loadedVersion = undefined
    this.decisions = new WeakMap()
  }

  /** True when `refresh()` would return at once: `decide` may be called without awaiting it. */
  isCurrent(): boolean {
    return this.loadedVersion !== undefined && Date.now() - this.checkedAt < this.checkIntervalMs
  }

  /** Reloads the index when grants changed (or the check interval passed and the counter moved). */
  async refresh(): Promise<void> {
    // A load already running may have begun before the latest change: then load once more.
    for (let attempt = 0; attempt < 3; attempt++) {
      const now = Date.now()
      if (this.loadedVersion !== undefined && now - this.checkedAt < this.checkIntervalMs) return
      this.loading ??= this.reload(now).finally(() => {
        this.loading = undefined
      })
      await this.loading
    }
  }

  private async reload(now: number): Promise<void> {
    const generation = this.generation
    const version = await this.grants.version()
    this.checkedAt = now
    if (version === this.loadedVersion) return
    // The version is read first: a write landing during the load is seen at the next check.
    this.index = indexGrants(await this.grants.listRows())
    this.decisions = new WeakMap()
    if (generation === this.generation) this.loadedVersion = version
  }

  /** The grants that could apply to `principal` (the policy decides which do). */
  grantsOf(principal: Principal): PolicyGrant[] {
    const own = this.index.bySubject.get(`${principal.kind}:${principal.id}`) ?? []
    if (principal.kind !== 'user' || !principal.claims) return own
    const byClaim = Object.keys(principal.claims).flatMap((key) => this.index.byClaimKey.get(key) ?? [])
    return byClaim.length === 0 ? own : [...own, ...byClaim]
  }

  /** The action and resources of a request, from the route table. */
  classify(
    principal: Principal,
    request: AuthorizationRequest,
  ): { action: string; resources: Resource[]; narrower?: string } {
    const match = matchRoute(request.method, request.path)
    if (!match) return { action: request.action ?? UNLISTED_ACTION, resources: [WORKSPACE] }
    if (match.row.narrower && request.action === undefined) {
      return {
        ...this.classify(principal, { ...request, action: match.row.action }),
        narrower: match.row.narrower,
      }
    }
    const action = request.action ?? match.row.action
    switch (match.row.resource) {
      case 'workspace':
        return { action, resources: [WORKSPACE] }
      case 'path':
        return { action, resources: [{ kind: 'system', id: decodeSegment(match.params.system ?? '') }] }
      case 'library':
        return { action, resources: [{ kind: 'library', id: decodeSegment(match.params.library ?? '') }] }
      case 'caller':
        return {
          action,
          resources: [principal.systemId === null ? WORKSPACE : { kind: 'system', id: principal.systemId }],
        }
      case 'binding':
        return { action, resources: this.bindingResources(match.params.rolebinding, request.body) }
      case 'query': {
        const ids = (request.query?.system ?? '')
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s !== '')
        return {
          action,
          resources: ids.length === 0 ? [WORKSPACE] : ids.map((id) => ({ kind: 'system', id })),
        }
      }
    }
  }

  /**
   * The resources a role-binding request acts on: the stored binding's for an id in the path; for
   * a body, its `resource_filter` (the workspace when it names no system) and the resource of the
   * stored binding its `id` would replace.
   */
  private bindingResources(idSegment: string | undefined, body: unknown): Resource[] {
    if (idSegment !== undefined)
      return [this.index.bindingResources.get(decodeSegment(idSegment)) ?? WORKSPACE]
    const fields = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {}
    const filter =
      typeof fields.resource_filter === 'object' && fields.resource_filter !== null
        ? (fields.resource_filter as Record<string, unknown>)
        : {}
    const resources = [resourceOf(filter.kind, filter.id)]
    const replaced = typeof fields.id === 'string' ? this.index.bindingResources.get(fields.id) : undefined
    if (replaced && !sameResource(replaced, resources[0]!)) resources.push(replaced)
    return resources
  }

  /**
   * True when `principal` may take `action` on `resource` (a route's own check against what it
   * read in its transaction, which may be newer than this index).
   */
  allows(principal: Principal, action: string, resource: Resource): boolean {
    return this.decideAction(principal, { method: '', path: '' }, action, [resource]).allowed
  }

  /** Decides a request for `principal` (call `refresh()` first). Every resource must be allowed. */
  decide(principal: Principal, request: AuthorizationRequest): Decision {
    // Only what the decision is a function of may key it: no body, no query, a token's principal.
    const memoizable =
      principal.kind === 'token' &&
      request.body === undefined &&
      (request.query === undefined || Object.keys(request.query).length === 0)
    if (!memoizable) return this.decideNow(principal, request)
    let byRequest = this.decisions.get(principal)
    if (!byRequest) {
      byRequest = new Map()
      this.decisions.set(principal, byRequest)
    }
    const key = `${request.action ?? ''} ${request.method} ${request.path}`
    let decision = byRequest.get(key)
    if (!decision) {
      decision = this.decideNow(principal, request)
      if (byRequest.size >= MAX_DECISIONS_PER_PRINCIPAL) byRequest.clear()
      byRequest.set(key, decision)
    }
    return decision
  }

  private decideNow(principal: Principal, request: AuthorizationRequest): Decision {
    const { action, resources, narrower } = this.classify(principal, request)
    // Whoever calls, the route itself checks the request against its shared secret (a webhook):
    // no role is needed, and the permission check says so too.
    if (isSharedSecretRoute(request.method, request.path))
      return { allowed: true, action, resources, roles: [] }
    const decision = this.decideAction(principal, request, action, resources)
    if (decision.allowed || narrower === undefined) return decision
    return this.decideAction(principal, request, narrower, resources)
  }

  private decideAction(
    principal: Principal,
    request: AuthorizationRequest,
    action: string,
    resources: Resource[],
  ): Decision {
    if (!this.enabled) return { allowed: true, action, resources, roles: [] }
    const subject = {
      kind: principal.kind,
      id: principal.id,
      provider: principal.provider ?? '',
      claims: principal.claims ?? {},
      system_id: principal.systemId,
    }
    const grants = this.grantsOf(principal)
    let grantId: string | undefined
    let roles: string[] = []
    for (const resource of resources) {
      const input = fromJS({ subject, grants, method: request.method, path: request.path, action, resource })
      const result = this.query.evalSync({ input }).results[0]?.bindings.get('x')
      const value = (result === undefined ? undefined : toJS(result)) as
        | { allow: boolean; grants: string[]; roles: string[] }
        | undefined
      roles = value?.roles ?? []
      if (!value?.allow) return { allowed: false, action, resources, roles }
      grantId ??= value.grants[0]
    }
    const grant = grantId === undefined ? undefined : this.index.byId.get(grantId)
    return {
      allowed: true,
      action,
      resources,
      roles,
      ...(grant
        ? {
            grant: {
              id: grant.id,
              role: grant.role,
              resource:
                grant.resource_kind === 'workspace'
                  ? 'workspace'
                  : `${grant.resource_kind}/${grant.resource_id}`,
            },
          }
        : {}),
    }
  }
}
