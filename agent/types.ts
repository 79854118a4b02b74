/** Types shared by the route files of `regent run -s`. */
import type { BodyLimits } from '../core/http/index.js'
import type { InterQueryCache } from '../core/rego/builtins/context.js'
import type { EvaluationBudget } from '../core/rego/index.js'
import type { Value } from '../core/rego/values/index.js'
import type { DecisionLogSink } from './decision-logging.js'
import type { ImpactRecorder } from './impact.js'
import type { ServerState } from './state.js'

/** What every route of the server needs. */
export interface RunServerDeps {
  state: ServerState
  /** Request body limits (wire and inflated). */
  limits: BodyLimits
  /** `opa.runtime()` for policies. */
  runtime: Value
  /** http.send responses cached across requests. */
  interQueryCache: InterQueryCache
  /** regent's version, for provenance, config and status. */
  version: string
  /** Slash path of the default decision `POST /` evaluates (OPA: `system/main`). */
  defaultDecision: string
  /** A stable id for this process (OPA's `labels.id`). */
  instanceId: string
  /** Timeout and work limit of each query (`--eval-timeout`, `--instruction-limit`). */
  budget: EvaluationBudget
  /** Hosts http.send may reach (capabilities `allow_net`); undefined: every host. */
  allowNet: readonly string[] | undefined
  /** Decision logging (`-c` with `decision_logs`); undefined: decisions are not logged. */
  decisionLog?: DecisionLogSink
  /** The `-c` plugins' state for `/health?bundles` and `/v1/status`; undefined without `-c`. */
  plugins?: PluginsView
  /** Live impact analysis recordings (`POST /v0/impact`), fed by every decision. */
  impact?: ImpactRecorder
}

/** What the routes read of the running plugins. */
export interface PluginsView {
  /** `id`, `version` and the configured labels, for `/v1/config`. */
  labels: Record<string, string>
  bundlesReady(): boolean
  statusReport(): Record<string, unknown>
}
