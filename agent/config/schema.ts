/**
 * `regent run -s -c FILE`: OPA's agent configuration, validated. The upstream sections (services,
 * bundles, discovery, keys) are the ones the relay reads (plugins/config.ts); this file adds what
 * only an agent has: `persist`, `decision_logs`, `status`, `labels`, `default_decision`,
 * `persistence_directory`. Sections stay loose objects, as OPA ignores keys it does not know;
 * settings regent cannot honour are refused by name in refusals.ts instead of silently ignored.
 */
import { z } from 'zod'
import { field } from '../../core/config.js'
import { bundleSchema, discoverySchema, keySchema, servicesSchema, stringMap } from '../../plugins/config.js'

const seconds = () => field.positiveInt()

/** `bundles.<name>`: the relay's bundle keys plus OPA's `persist` and `trigger`. */
const agentBundleSchema = bundleSchema.extend({
  persist: z.boolean({ error: 'expected true or false' }).default(false),
  trigger: z.enum(['periodic', 'manual'], { error: 'expected periodic or manual' }).default('periodic'),
})
export type AgentBundleConfig = z.output<typeof agentBundleSchema>

const reportingSchema = z
  .looseObject({
    buffer_type: z.enum(['size', 'event'], { error: 'expected size or event' }).default('size'),
    /** Bound of the durable buffer; past it the oldest undelivered events are dropped, as OPA does. */
    buffer_size_limit_bytes: field.positiveInt().optional(),
    buffer_size_limit_events: field.positiveInt().optional(),
    /** Bound on one gzip upload (OPA's chunk size). */
    upload_size_limit_bytes: field.positiveInt().default(32768),
    min_delay_seconds: seconds().optional(),
    max_delay_seconds: seconds().optional(),
    max_decisions_per_second: z.number({ error: 'expected a number' }).positive().optional(),
    trigger: z.enum(['periodic', 'manual'], { error: 'expected periodic or manual' }).default('periodic'),
  })
  .refine((r) => (r.min_delay_seconds ?? 0) <= (r.max_delay_seconds ?? Number.POSITIVE_INFINITY), {
    path: ['max_delay_seconds'],
    error: 'max_delay_seconds must not be less than min_delay_seconds',
  })

/** `decision_logs`. */
const decisionLogsSchema = z.looseObject({
  service: z.string({ error: 'expected a service name' }).optional(),
  resource: z.string().optional(),
  partition_name: z.string().optional(),
  console: z.boolean({ error: 'expected true or false' }).default(false),
  plugin: z.string().optional(),
  reporting: reportingSchema.prefault({}),
  mask_decision: z.string().optional(),
  drop_decision: z.string().optional(),
})
export type AgentDecisionLogsConfig = z.output<typeof decisionLogsSchema>

/** `status`. */
const statusSchema = z.looseObject({
  service: z.string({ error: 'expected a service name' }).optional(),
  partition_name: z.string().optional(),
  console: z.boolean({ error: 'expected true or false' }).default(false),
  prometheus: z.boolean({ error: 'expected true or false' }).default(false),
  plugin: z.string().optional(),
  trigger: z.enum(['periodic', 'manual'], { error: 'expected periodic or manual' }).default('periodic'),
})
export type AgentStatusConfig = z.output<typeof statusSchema>

/** The whole agent configuration file. */
export const agentConfigSchema = z.looseObject({
  services: servicesSchema.default({}),
  bundles: z.record(z.string(), agentBundleSchema).default({}),
  discovery: discoverySchema.extend({ persist: z.boolean().default(false) }).optional(),
  keys: z.record(z.string(), keySchema).default({}),
  labels: stringMap.default({}),
  decision_logs: decisionLogsSchema.optional(),
  status: statusSchema.optional(),
  default_decision: z.string({ error: 'expected a path such as /system/main' }).default('/system/main'),
  default_authorization_decision: z
    .string({ error: 'expected a path such as /system/authz/allow' })
    .default('/system/authz/allow'),
  /** Where persisted bundles and the decision-log buffer live (OPA's default: `.opa`). */
  persistence_directory: z.string({ error: 'expected a folder path' }).min(1).optional(),
  plugins: z.record(z.string(), z.unknown()).optional(),
})
export type AgentConfig = z.output<typeof agentConfigSchema>
