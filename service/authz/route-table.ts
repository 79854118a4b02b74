/**
 * The one route → action table: every management-API method and path pattern, the action it
 * takes and the resource it acts on. The authorization middleware, the permission check and
 * docs/access-control.md (generated from it) all read this table.
 *
 * Patterns: `{name}` is one path segment, `{name...}` one or more. The first matching row wins,
 * so specific rows come before general ones. A request no row matches is decided with the action
 * `unlisted`, which only WorkspaceAdministrator's `*` allows.
 */

/**
 * Where the resource comes from: the workspace; the `{system}` segment of the path; the
 * `system` query parameter (each listed system, or the workspace without it); the caller's
 * own system for agent tokens (the workspace for anyone else); the `{library}` segment of the
 * path (`library`: a policy library); or the role binding acted on (`binding`): the stored
 * binding's resource for a `{rolebinding}` path (the workspace for an unknown id), and for the
 * collection's POST the body's `resource_filter` plus, when the body's `id` names a stored
 * binding, that binding's resource (a replacement acts on both).
 */
export type ResourceSource = 'workspace' | 'path' | 'query' | 'caller' | 'binding' | 'library'

export interface RouteRow {
  method: string
  pattern: string
  action: string
  resource: ResourceSource
  /**
   * A narrower action that also admits the request; the route then limits what it does to that
   * action (PUT /v1/tokens/{token} under `tokens.refresh` may only regenerate the secret).
   */
  narrower?: string
  /**
   * How the caller is authenticated when not by a bearer token: `shared-secret` rows (git
   * webhooks) are passed by authentication and authorization untouched; the route itself checks
   * the request against the secret and does nothing a role would have to allow. `none` rows
   * (console sign-in) are open to anyone: they serve whoever is still signing in, read nothing
   * a role guards and change nothing.
   */
  authentication?: 'shared-secret' | 'none'
}

const row = (
  method: string,
  pattern: string,
  action: string,
  resource: ResourceSource = 'workspace',
): RouteRow => ({
  method,
  pattern,
  action,
  resource,
})

/** The action of a request no row matches. */
export const UNLISTED_ACTION = 'unlisted'

export const ROUTE_TABLE: readonly RouteRow[] = [
  // Systems
  row('GET', '/v1/systems', 'systems.list'),
  row('POST', '/v1/systems', 'systems.create'),
  // Source control: verifying a config is part of creating a system; the rest is the system's policy
  row('POST', '/v1/systems/source-control/verify-config', 'systems.create'),
  row('POST', '/v1/systems/{system}/commits', 'policies.write', 'path'),
  row('GET', '/v1/systems/{system}/master', 'policies.read', 'path'),
  row('GET', '/v1/systems/{system}/branch', 'policies.read', 'path'),
  row('DELETE', '/v1/systems/{system}/branch', 'policies.write', 'path'),
  row('GET', '/v1/systems/{system}', 'systems.read', 'path'),
  row('PUT', '/v1/systems/{system}', 'systems.update', 'path'),
  row('DELETE', '/v1/systems/{system}', 'systems.delete', 'path'),
  row('GET', '/v1/systems/{system}/assets/{assettype}', 'systems.install', 'path'),
  // Bundle registry: versions are system state; a version's bytes are its policies
  row('GET', '/v1/systems/{system}/bundles', 'systems.read', 'path'),
  row('GET', '/v1/systems/{system}/bundles/{bundle}/{version}/details', 'systems.read', 'path'),
  row('GET', '/v1/systems/{system}/bundles/{bundle}/{version}/bundle', 'policies.read', 'path'),
  row('GET', '/v1/systems/{system}/bundle-deploy', 'systems.read', 'path'),
  row('PUT', '/v1/systems/{system}/bundle-deploy', 'systems.update', 'path'),
  // The compile playground evaluates the system's policies and data, as a data evaluation does
  row('POST', '/v1/systems/{system}/compile/{path...}', 'data.read', 'path'),
  // Git sources: a sync takes the origin's policies, so it needs what pushing policies needs
  row('POST', '/v1/systems/{system}/source-control/sync', 'policies.write', 'path'),
  {
    ...row('POST', '/v1/systems/{system}/source-control/webhook', 'sourcecontrol.webhook', 'path'),
    authentication: 'shared-secret',
  },
  // Console sign-in through an identity provider: the caller has no token yet
  { ...row('GET', '/v1/console/sign-in-options', 'console.signin'), authentication: 'none' },
  { ...row('POST', '/v1/console/oidc/token', 'console.signin'), authentication: 'none' },
  // Agent traffic
  row('GET', '/v1/systems/{system}/discovery', 'bundles.pull', 'path'),
  row('GET', '/v1/bundles/systems/{system}', 'bundles.pull', 'path'),
  row('POST', '/v1/logs', 'agent.report', 'caller'),
  row('POST', '/v1/logs/{partition...}', 'agent.report', 'caller'),
  row('POST', '/v1/status', 'agent.report', 'caller'),
  row('POST', '/v1/status/{partition...}', 'agent.report', 'caller'),
  row('GET', '/v1/status', 'status.read', 'query'),
  // The same reports summarised for people, with their receive times (the console's Fleet view)
  row('GET', '/v1/fleet', 'status.read', 'query'),
  // Policies and data: under systems/{system} they belong to that system
  row('GET', '/v1/policies', 'policies.read'),
  row('GET', '/v1/policies/systems/{system}', 'policies.read', 'path'),
  row('GET', '/v1/policies/systems/{system}/{path...}', 'policies.read', 'path'),
  row('PUT', '/v1/policies/systems/{system}/{path...}', 'policies.write', 'path'),
  row('DELETE', '/v1/policies/systems/{system}/{path...}', 'policies.write', 'path'),
  row('GET', '/v1/policies/{path...}', 'policies.read'),
  row('PUT', '/v1/policies/{path...}', 'policies.write'),
  row('DELETE', '/v1/policies/{path...}', 'policies.write'),
  // Evaluation (POST, GET with a DataRequest) reads: it writes nothing (docs/data-evaluation.md).
  row('GET', '/v1/data', 'data.read'),
  row('POST', '/v1/data', 'data.read'),
  row('POST', '/v1/data/systems/{system}', 'data.read', 'path'),
  row('POST', '/v1/data/systems/{system}/{path...}', 'data.read', 'path'),
  row('GET', '/v1/data/systems/{system}', 'data.read', 'path'),
  row('GET', '/v1/data/systems/{system}/{path...}', 'data.read', 'path'),
  row('PUT', '/v1/data/systems/{system}/{path...}', 'data.write', 'path'),
  row('PATCH', '/v1/data/systems/{system}/{path...}', 'data.write', 'path'),
  row('DELETE', '/v1/data/systems/{system}/{path...}', 'data.write', 'path'),
  row('GET', '/v1/data/{path...}', 'data.read'),
  row('POST', '/v1/data/{path...}', 'data.read'),
  row('PUT', '/v1/data/{path...}', 'data.write'),
  row('PATCH', '/v1/data/{path...}', 'data.write'),
  row('DELETE', '/v1/data/{path...}', 'data.write'),
  // Datasources: ids are slash paths; systems/{system}/… belong to that system
  row('GET', '/v1/datasources', 'datasources.read', 'query'),
  row('GET', '/v1/datasources/systems/{system}/{path...}', 'datasources.read', 'path'),
  row('PUT', '/v1/datasources/systems/{system}/{path...}', 'datasources.write', 'path'),
  row('POST', '/v1/datasources/systems/{system}/{path...}', 'datasources.write', 'path'),
  row('DELETE', '/v1/datasources/systems/{system}/{path...}', 'datasources.write', 'path'),
  row('GET', '/v1/datasources/{path...}', 'datasources.read'),
  row('PUT', '/v1/datasources/{path...}', 'datasources.write'),
  row('POST', '/v1/datasources/{path...}', 'datasources.write'),
  row('DELETE', '/v1/datasources/{path...}', 'datasources.write'),
  // Policy libraries (docs/libraries.md): one library is its own resource; the list is open to
  // every caller and answers only the libraries the caller may read (libraries.read on each)
  row('GET', '/v1/libraries', 'libraries.list'),
  row('GET', '/v1/libraries/{library}', 'libraries.read', 'library'),
  row('PUT', '/v1/libraries/{library}', 'libraries.write', 'library'),
  row('DELETE', '/v1/libraries/{library}', 'libraries.write', 'library'),
  // Decisions
  row('GET', '/v1/decisions', 'decisions.read'),
  row('POST', '/v1/decisions', 'decisions.read'),
  row('GET', '/v1/decisions/counts', 'decisions.read'),
  row('GET', '/v1/decisions/{decision}', 'decisions.read'),
  // Replays logged decisions against candidate modules: it stores nothing, but it runs the
  // caller's Rego on the evaluation workers and may fetch the system's git origin with its
  // credentials, so reading decisions is not enough (docs/decision-replay.md).
  row('POST', '/v1/logreplay', 'decisions.replay'),
  // Tokens (a PUT whose body only asks to regenerate the secret is `tokens.refresh`)
  row('GET', '/v1/tokens', 'tokens.read'),
  row('GET', '/v1/tokens/{token}', 'tokens.read'),
  { ...row('PUT', '/v1/tokens/{token}', 'tokens.write'), narrower: 'tokens.refresh' },
  row('DELETE', '/v1/tokens/{token}', 'tokens.write'),
  // Secrets (ids may contain slashes)
  row('GET', '/v1/secrets', 'secrets.read'),
  row('GET', '/v1/secrets/{secret...}', 'secrets.read'),
  row('PUT', '/v1/secrets/{secret...}', 'secrets.write'),
  row('DELETE', '/v1/secrets/{secret...}', 'secrets.write'),
  // Activity
  row('POST', '/v1/activity', 'activity.read'),
  row('GET', '/v2/activity', 'activity.read'),
  row('GET', '/v2/activity/{activity}', 'activity.read'),
  // Blueprints
  row('GET', '/v1/blueprints', 'blueprints.read'),
  row('GET', '/v1/blueprints/{blueprint}', 'blueprints.read'),
  row('POST', '/v1/blueprints/{blueprint}', 'blueprints.apply'),
  // Access control, v1: a system's bindings are managed by its owners
  row('GET', '/v1/authz/roles', 'authz.roles'),
  row('POST', '/v1/authz/evaluation', 'authz.evaluate'),
  row('GET', '/v1/authz/rolebindings', 'authz.read'),
  row('GET', '/v1/authz/rolebindings/systems/{system}', 'authz.read', 'path'),
  row('GET', '/v1/authz/rolebindings/systems/{system}/{rolebinding}', 'authz.read', 'path'),
  row('PUT', '/v1/authz/rolebindings/systems/{system}/{rolebinding}', 'authz.write', 'path'),
  row('DELETE', '/v1/authz/rolebindings/systems/{system}/{rolebinding}', 'authz.write', 'path'),
  row('GET', '/v1/authz/rolebindings/libraries/{library}', 'authz.read', 'library'),
  row('GET', '/v1/authz/rolebindings/libraries/{library}/{rolebinding}', 'authz.read', 'library'),
  row('PUT', '/v1/authz/rolebindings/libraries/{library}/{rolebinding}', 'authz.write', 'library'),
  row('DELETE', '/v1/authz/rolebindings/libraries/{library}/{rolebinding}', 'authz.write', 'library'),
  row('GET', '/v1/authz/rolebindings/{resourcetype}/{resource}', 'authz.read'),
  row('GET', '/v1/authz/rolebindings/{resourcetype}/{resource}/{rolebinding}', 'authz.read'),
  row('PUT', '/v1/authz/rolebindings/{resourcetype}/{resource}/{rolebinding}', 'authz.write'),
  row('DELETE', '/v1/authz/rolebindings/{resourcetype}/{resource}/{rolebinding}', 'authz.write'),
  // Access control, v2: a binding on a system is managed by that system's owners, as in v1;
  // workspace bindings (and the whole list) stay with workspace roles
  row('GET', '/v2/authz/roles', 'authz.roles'),
  row('GET', '/v2/authz/rolebindings', 'authz.read'),
  row('POST', '/v2/authz/rolebindings', 'authz.write', 'binding'),
  row('GET', '/v2/authz/rolebindings/{rolebinding}', 'authz.read', 'binding'),
  row('DELETE', '/v2/authz/rolebindings/{rolebinding}', 'authz.write', 'binding'),
  row('POST', '/v2/authz/rolebindings/{rolebinding}/subjects', 'authz.write', 'binding'),
  row('PUT', '/v2/authz/rolebindings/{rolebinding}/subjects', 'authz.write', 'binding'),
  row('DELETE', '/v2/authz/rolebindings/{rolebinding}/subjects', 'authz.write', 'binding'),
]

/**
 * True when deciding a request to `method` `path` needs its body: the collection POST of
 * role bindings, whose resource is the body's `resource_filter`.
 */
export function resourceInBody(method: string, path: string): boolean {
  const match = matchRoute(method, path)
  return match?.row.resource === 'binding' && match.params.rolebinding === undefined
}

interface CompiledRow {
  row: RouteRow
  regex: RegExp
}

function compilePattern(pattern: string): RegExp {
  const source = pattern
    .split('/')
    .map((segment) => {
      const param = /^\{(\w+)(\.\.\.)?\}$/.exec(segment)
      if (!param) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
      return param[2] ? `(?<${param[1]}>.+)` : `(?<${param[1]}>[^/]+)`
    })
    .join('/')
  return new RegExp(`^${source}/?$`)
}

const COMPILED: CompiledRow[] = ROUTE_TABLE.map((row) => ({ row, regex: compilePattern(row.pattern) }))

/** A matched row and its path parameters. */
export interface RouteMatch {
  row: RouteRow
  params: Record<string, string>
}

/**
 * True when the request is not authenticated by a token: a shared secret in the route
 * (webhooks), or nothing at all (console sign-in).
 */
export function isSharedSecretRoute(method: string, path: string): boolean {
  return matchRoute(method, path)?.row.authentication !== undefined
}

// Each request matches its path three times (authentication, authorization, the body check) and
// agents poll the same few paths: the answers are kept, bounded (cleared when full) since paths
// come from callers. A match is never mutated by its readers.
const MATCHES = new Map<string, RouteMatch | null>()
const MAX_MATCHES = 4096

/** The first row matching `method` and `path` (HEAD is matched as GET). */
export function matchRoute(method: string, path: string): RouteMatch | undefined {
  const key = `${method} ${path}`
  const known = MATCHES.get(key)
  if (known !== undefined) return known ?? undefined
  const found = scanRoutes(method, path)
  if (MATCHES.size >= MAX_MATCHES) MATCHES.clear()
  MATCHES.set(key, found ?? null)
  return found
}

function scanRoutes(method: string, path: string): RouteMatch | undefined {
  const m = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase()
  for (const { row, regex } of COMPILED) {
    if (row.method !== m) continue
    const found = regex.exec(path)
    if (found) return { row, params: { ...found.groups } }
  }
  return undefined
}
