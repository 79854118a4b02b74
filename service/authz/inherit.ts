/**
 * `inherit_roles`: what a caller is granted on a resource it just created, read from the roles
 * it holds (e.g. WorkspaceSystemCreator: on create of a system, SystemOwner on it).
 */
import type { StoredBinding } from '../../store/service/index.js'
import type { Principal } from '../types.js'
import type { Authorizer } from './authorizer.js'
import { newBindingId } from './bindings.js'
import { roleById } from './roles.js'

/** The bindings to write for `principal`, holding `heldRoles`, after `action` on a resource. */
export function inheritedBindings(
  principal: Principal,
  heldRoles: readonly string[],
  action: string,
  resource: { kind: string; id: string },
): Array<Omit<StoredBinding, 'meta'>> {
  const granted = new Set<string>()
  for (const held of heldRoles) {
    for (const rule of roleById(held)?.inherit_roles ?? []) {
      if (rule.action === action && rule.resource_kind === resource.kind) granted.add(rule.role)
    }
  }
  return [...granted].sort().map((role) => ({
    id: newBindingId(),
    name: `${roleById(role)?.v1Name ?? role}s`,
    description: `granted to ${principal.kind} ${principal.id} on creating ${resource.kind} ${resource.id}`,
    role,
    resourceKind: resource.kind,
    resourceId: resource.id,
    subjects: [{ kind: principal.kind, id: principal.id }],
  }))
}

/**
 * The bindings that make `principal` an owner (or what its roles' inherit_roles say) of the
 * system `systemId` it is creating, by POST /v1/systems or through a blueprint.
 */
export function creatorBindings(
  authorizer: Authorizer,
  principal: Principal,
  systemId: string,
): Array<Omit<StoredBinding, 'meta'>> {
  const held = authorizer.decide(principal, { method: 'POST', path: '/v1/systems' }).roles
  return inheritedBindings(principal, held, 'create', { kind: 'system', id: systemId })
}
