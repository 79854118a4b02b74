/**
 * The built-in roles (service-notes §3.1) and the actions each allows. A workspace role's
 * actions apply to every resource; a system role's only to the system its binding names.
 * Actions are what the route table (route-table.ts) assigns to each method and path.
 */

/** `inherit_roles` entry: on `action` of a `resource_kind`, the caller gets `role` on it. */
export interface InheritRole {
  action: string
  resource_kind: string
  role: string
}

export interface BuiltinRole {
  id: string
  /** The v1 short name (`GET /v1/authz/roles`, v1 bindings' `role_name`). */
  v1Name: string
  resource_kind: 'workspace' | 'system' | 'library'
  description: string
  inherit_roles: InheritRole[]
  /** The actions this role allows; `*` is every action. */
  actions: readonly string[]
}

const READ_EVERYTHING = [
  'systems.list',
  'systems.read',
  'status.read',
  'policies.read',
  'data.read',
  'datasources.read',
  'decisions.read',
  'tokens.read',
  'secrets.read',
  'activity.read',
  'blueprints.read',
  'authz.read',
  'libraries.read',
] as const

export const BUILTIN_ROLES: readonly BuiltinRole[] = [
  {
    id: 'WorkspaceAdministrator',
    v1Name: 'administrator',
    resource_kind: 'workspace',
    description: 'Full control of the workspace and everything in it, access control included.',
    inherit_roles: [],
    actions: ['*'],
  },
  {
    id: 'WorkspaceViewer',
    v1Name: 'viewer',
    resource_kind: 'workspace',
    description: "Reads everything except systems' install configuration (it carries the agent token).",
    inherit_roles: [],
    actions: READ_EVERYTHING,
  },
  {
    id: 'WorkspaceSystemCreator',
    v1Name: 'system-creator',
    resource_kind: 'workspace',
    description: 'Creates systems (directly or by applying a blueprint) and becomes SystemOwner of each.',
    inherit_roles: [{ action: 'create', resource_kind: 'system', role: 'SystemOwner' }],
    actions: ['systems.create', 'blueprints.read', 'blueprints.apply'],
  },
  {
    id: 'WorkspaceTokenRefresher',
    v1Name: 'token-refresher',
    resource_kind: 'workspace',
    description: 'Regenerates the secret of tokens that do not belong to a system.',
    inherit_roles: [],
    actions: ['tokens.read', 'tokens.refresh'],
  },
  {
    id: 'SystemOwner',
    v1Name: 'owner',
    resource_kind: 'system',
    description: 'Full control of one system: configuration, policies, data, install configuration, access.',
    inherit_roles: [],
    actions: [
      'systems.read',
      'systems.update',
      'systems.delete',
      'systems.install',
      'bundles.pull',
      'status.read',
      'policies.read',
      'policies.write',
      'data.read',
      'data.write',
      'datasources.read',
      'datasources.write',
      'authz.read',
      'authz.write',
    ],
  },
  {
    id: 'SystemEditor',
    v1Name: 'editor',
    resource_kind: 'system',
    description: "Reads and changes a system's policies and data, not its configuration or access.",
    inherit_roles: [],
    actions: [
      'systems.read',
      'bundles.pull',
      'status.read',
      'policies.read',
      'policies.write',
      'data.read',
      'data.write',
      'datasources.read',
      'datasources.write',
    ],
  },
  {
    id: 'SystemPolicyEditor',
    v1Name: 'policy-editor',
    resource_kind: 'system',
    description: 'Reads a system and changes its policies.',
    inherit_roles: [],
    actions: [
      'systems.read',
      'status.read',
      'policies.read',
      'policies.write',
      'data.read',
      'datasources.read',
    ],
  },
  {
    id: 'SystemViewer',
    v1Name: 'viewer',
    resource_kind: 'system',
    description: 'Reads a system, its policies, data and agent status.',
    inherit_roles: [],
    actions: ['systems.read', 'status.read', 'policies.read', 'data.read', 'datasources.read', 'authz.read'],
  },
  {
    id: 'SystemDatasources',
    v1Name: 'datasources',
    resource_kind: 'system',
    description: "Reads and writes a system's data and datasources (configuration, pushes, runs).",
    inherit_roles: [],
    actions: ['systems.read', 'data.read', 'data.write', 'datasources.read', 'datasources.write'],
  },
  {
    id: 'LibraryOwner',
    v1Name: 'owner',
    resource_kind: 'library',
    description: 'Full control of one policy library: its modules, its deletion and who may access it.',
    inherit_roles: [],
    actions: ['libraries.read', 'libraries.write', 'authz.read', 'authz.write'],
  },
  {
    id: 'LibraryViewer',
    v1Name: 'viewer',
    resource_kind: 'library',
    description: 'Reads one policy library (and pulls it with `regent pull`).',
    inherit_roles: [],
    actions: ['libraries.read'],
  },
]

/** What an agent token may do for its own system (not a role: it follows from the token row). */
export const AGENT_ACTIONS = ['bundles.pull', 'systems.install', 'agent.report', 'status.read'] as const

/**
 * Actions any authenticated caller may take: listing roles, asking about its own rights, and
 * listing the systems and libraries it may read (the routes filter the lists by `systems.read`
 * and `libraries.read`, so a system's viewer sees that system and a caller without any role an
 * empty list).
 */
export const OPEN_ACTIONS = ['authz.roles', 'authz.evaluate', 'systems.list', 'libraries.list'] as const

const byId = new Map(BUILTIN_ROLES.map((r) => [r.id, r]))

export function roleById(id: string): BuiltinRole | undefined {
  return byId.get(id)
}

/** A role by v2 id or, under `resourceKind`, by v1 short name. */
export function roleByName(name: string, resourceKind: string): BuiltinRole | undefined {
  return byId.get(name) ?? BUILTIN_ROLES.find((r) => r.v1Name === name && r.resource_kind === resourceKind)
}
