/**
 * A system's policies must compile together before any of them is stored: the policies route
 * checks one changed policy, a blueprint checks all the policies it adds to a system at once.
 */
import { badRequest } from '../../core/http/index.js'
import type { ServiceRepositories } from '../../store/service/index.js'
import { checkModuleSet, describeRegoError } from '../policy-validation.js'

/**
 * Compiles the system's stored module set with `changes` (policy path → modules) in place.
 * @throws HttpError 400 with the compiler's errors (file, row, column) when it does not compile.
 */
export async function assertSystemCompiles(
  repos: ServiceRepositories,
  systemId: string,
  changes: Record<string, Record<string, string>>,
): Promise<void> {
  const set: Record<string, string> = {}
  for (const policy of await repos.policies.listForSystem(systemId)) {
    if (policy.path in changes) continue
    for (const [file, source] of Object.entries(JSON.parse(policy.modules) as Record<string, string>))
      set[`${policy.path}/${file}`] = source
  }
  for (const [path, modules] of Object.entries(changes))
    for (const [file, source] of Object.entries(modules)) set[`${path}/${file}`] = source
  const errors = checkModuleSet(set)
  if (errors.length > 0) {
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''
    const what = Object.keys(changes).join(', ')
    throw badRequest(
      `policy ${what} does not compile with system ${systemId}'s modules: ${describeRegoError(errors[0]!)}${more}`,
      errors,
    )
  }
}
