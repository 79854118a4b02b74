/**
 * Applying a blueprint: every system, policy and data document it names is created in one
 * transaction (all or none), and what already exists is left as it is, so applying twice
 * changes nothing and answers the same resources. Modules are parsed and each system's policies
 * compiled together before anything is written; the touched systems' bundles are rebuilt after
 * the commit.
 */
import { badRequest, conflict } from '../../core/http/index.js'
import {
  type Actor,
  AlreadyExistsError,
  createdBy,
  type ServiceRepositories,
} from '../../store/service/index.js'
import type { TransactionRunner } from '../activity/change-transaction.js'
import { creatorBindings } from '../authz/inherit.js'
import { documentEtag, stringifyJsonDocument } from '../json-document.js'
import { assertSystemCompiles } from '../systems/assert-system-compiles.js'
import { insertSystem } from '../systems/insert-system.js'
import type { Principal, ServiceDeps } from '../types.js'
import type { Blueprint, BlueprintResource, BlueprintSystem } from './definition.js'

/** What applying made or found, and which systems' bundles must be rebuilt. */
interface Applied {
  resources: BlueprintResource[]
  changed: string[]
  /** Whether role bindings were written (the authorizer must re-read them). */
  granted: boolean
}

/** Who creates, and what creating a system grants them. */
interface Creating {
  agentTokenKey: string
  actor: Actor
  bindingsFor: (systemId: string) => ReturnType<typeof creatorBindings>
}

/**
 * Creates what the blueprint names and is missing; returns every resource it names.
 * @throws HttpError 400 when a module does not parse or a system's policies do not compile,
 * 409 when a system's name is taken by another system.
 */
export async function applyBlueprint(
  deps: Pick<ServiceDeps, 'store' | 'builder' | 'agentTokenKey' | 'validateModule' | 'authorizer'>,
  name: string,
  blueprint: Blueprint,
  principal: Principal,
  /** Runs the creating transaction (a route passes its change transaction, which records the request). */
  inTransaction: TransactionRunner = (work) => deps.store.transaction(work),
): Promise<BlueprintResource[]> {
  assertModulesParse(deps, name, blueprint)
  const creating: Creating = {
    agentTokenKey: deps.agentTokenKey,
    actor: { by: principal.id, through: 'api' },
    // The caller owns the systems it creates, as with POST /v1/systems.
    bindingsFor: (systemId) => creatorBindings(deps.authorizer, principal, systemId),
  }
  let applied: Applied
  try {
    applied = await inTransaction((tx) => createMissing(tx, creating, blueprint))
  } catch (err) {
    if (!(err instanceof AlreadyExistsError)) throw err
    // Another apply of the same blueprint committed first: what it made now exists, so one more
    // pass only finds it. A second conflict is a real one (a name taken by another system).
    try {
      applied = await inTransaction((tx) => createMissing(tx, creating, blueprint))
    } catch (again) {
      if (again instanceof AlreadyExistsError) throw conflict(`blueprint ${name}: ${again.message}`)
      throw again
    }
  }
  if (applied.granted) deps.authorizer.changed()
  for (const systemId of applied.changed) await deps.builder.rebuild(systemId)
  return applied.resources
}

function assertModulesParse(
  deps: Pick<ServiceDeps, 'validateModule'>,
  name: string,
  blueprint: Blueprint,
): void {
  const problems: string[] = []
  for (const system of blueprint.systems)
    for (const [path, modules] of Object.entries(system.policies))
      for (const [file, source] of Object.entries(modules)) {
        const problem = deps.validateModule(`systems/${system.id}/${path}/${file}`, source)
        if (problem) problems.push(problem)
      }
  if (problems.length > 0) throw badRequest(`blueprint ${name}: ${problems[0]}`, problems)
}

async function createMissing(
  tx: ServiceRepositories,
  creating: Creating,
  blueprint: Blueprint,
): Promise<Applied> {
  const { actor } = creating
  const now = new Date()
  const applied: Applied = { resources: [], changed: [], granted: false }
  for (const system of blueprint.systems) {
    const created = !(await tx.systems.exists(system.id))
    if (created) {
      const { name, type } = system.config
      const bindings = creating.bindingsFor(system.id)
      const fields = system.config
      await insertSystem(tx, creating.agentTokenKey, { id: system.id, name, type, fields }, actor, {
        bindings,
        now,
      })
      if (bindings.length > 0) applied.granted = true
    }
    applied.resources.push({ id: system.id, type: 'system' })
    const added = await addPolicies(tx, system, actor, now, applied.resources)
    const addedData = await addDocuments(tx, system, actor, now, applied.resources)
    if (!created && (added || addedData)) await tx.systems.bumpContentVersion(system.id)
    if (created || added || addedData) applied.changed.push(system.id)
  }
  return applied
}

async function addPolicies(
  tx: ServiceRepositories,
  system: BlueprintSystem,
  actor: Actor,
  now: Date,
  resources: BlueprintResource[],
): Promise<boolean> {
  const missing: Record<string, Record<string, string>> = {}
  for (const [relative, modules] of Object.entries(system.policies)) {
    const path = `systems/${system.id}/${relative}`
    resources.push({ id: path, type: 'policy' })
    if (!(await tx.policies.get(path))) missing[path] = modules
  }
  if (Object.keys(missing).length === 0) return false
  await assertSystemCompiles(tx, system.id, missing)
  for (const [path, modules] of Object.entries(missing)) {
    await tx.policies.upsert({
      path,
      system_id: system.id,
      modules: JSON.stringify(modules),
      ...createdBy(actor, now),
    })
  }
  return true
}

async function addDocuments(
  tx: ServiceRepositories,
  system: BlueprintSystem,
  actor: Actor,
  now: Date,
  resources: BlueprintResource[],
): Promise<boolean> {
  let added = false
  for (const [relative, value] of Object.entries(system.data)) {
    const path = `systems/${system.id}/${relative}`
    resources.push({ id: path, type: 'data' })
    if (await tx.dataDocuments.get(path)) continue
    const text = stringifyJsonDocument(value)
    await tx.dataDocuments.upsert({
      path,
      system_id: system.id,
      value: text,
      etag: documentEtag(text),
      ...createdBy(actor, now),
    })
    added = true
  }
  return added
}
