/**
 * The one error the planner raises: a construct outside the subset `regent build -t plan`
 * compiles (docs/plan.md). It names the construct and where it is, so the build refuses with one
 * line instead of writing a plan that would decide differently from the policy.
 */
import type { Location } from '../syntax/ast.js'

/** A construct the plan target does not compile, with its source position. */
export class PlanError extends Error {
  readonly construct: string
  readonly location: Pick<Location, 'file' | 'row' | 'col'> | undefined

  constructor(construct: string, location?: Pick<Location, 'file' | 'row' | 'col'>) {
    const where = location ? `${location.file}:${location.row}: ` : ''
    super(`${where}${construct} is not supported by the plan target (see docs/plan.md)`)
    this.name = 'PlanError'
    this.construct = construct
    this.location = location ? { file: location.file, row: location.row, col: location.col } : undefined
  }
}

/** An entrypoint that names no rule (OPA's message for the same case). */
export class PlanEntrypointError extends Error {}
