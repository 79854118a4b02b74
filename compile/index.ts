/**
 * The data-filter compile endpoint (`/v1/compile`): residual queries of partial evaluation turned into
 * UCAST condition trees and SQL `WHERE` clauses, with column masks and table mappings. The relay and
 * `regent run -s` mount `compileRoutes({ backend })`; the backend is the Rego engine.
 */
export { type AcceptedFormat, knownAcceptValues, negotiateAccept } from './accept.js'
export { AnnotationCache } from './annotation-cache.js'
export { maskRuleFromAnnotations, unknownsFromAnnotations } from './annotations.js'
export {
  answerCompile,
  type CompileAnswer,
  type CompileRequest,
  type CompileRunner,
  errorAnswer,
  failureAnswer,
} from './answer.js'
export { type CompileInput, type CompileOutput, CompileService } from './compile.js'
export { type AstErrorJson, CompileFailure } from './errors.js'
export { checkFragments } from './fragments/check.js'
export { ConstraintSet, constraintFor } from './fragments/constraints.js'
export { type Hint, hintsFor } from './hints.js'
export { lookupMappings, shortNames, translateField } from './mappings.js'
export { evaluateMasks, resolveRequestMaskRule } from './masks.js'
export { type CompileResponseBody, serializeJson } from './response.js'
export {
  type CompileRouteDeps,
  type CompileRoutes,
  type CompileRunnerRouteDeps,
  compileRoutes,
  compileRunnerRoutes,
} from './route.js'
export { renderSql, SQL_DIALECTS, SqlRenderError } from './sql/index.js'
export { parseTargetDialects } from './targets.js'
export type * from './types.js'
export { type Decision, FieldRef, queriesToUcast, type UcastNode } from './ucast.js'
