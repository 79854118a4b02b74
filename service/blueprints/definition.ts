/**
 * What a blueprint is: named systems, each with the policies and data documents to create under
 * `systems/{id}/`. Built-in blueprints are written in this shape in `builtin/`; users add their
 * own as `<name>.yaml` files in `service.blueprints.dir`, checked against the same schema.
 */
import { z } from 'zod'
import { systemFieldsSchema } from '../system-config.js'

/** Blueprint names: what fits in one URL segment and a file name. */
export const BLUEPRINT_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/

const SYSTEM_ID = /^[A-Za-z0-9][A-Za-z0-9._@:-]{0,127}$/
// A path under the system, as the policies and data routes accept it (no empty, "." or ".." segments).
const RELATIVE_PATH = /^(?!.*(?:^|\/)\.{1,2}(?:\/|$))[A-Za-z0-9._@:-]+(?:\/[A-Za-z0-9._@:-]+)*$/
const MODULE_FILE = /^(?:[A-Za-z0-9._@:-]+\/)*[A-Za-z0-9._@:-]+\.rego$/

const blueprintSystemSchema = z.strictObject({
  id: z.string().regex(SYSTEM_ID, { error: "use 1-128 letters, digits, '.', '_', '@', ':' or '-'" }),
  config: systemFieldsSchema.safeExtend({
    name: z.string().trim().min(1).max(256),
    type: z.string().trim().min(1).max(128),
  }),
  /** Policy path under `systems/{id}/` → module file name → Rego source. */
  policies: z
    .record(
      z.string().regex(RELATIVE_PATH, { error: 'expected a relative slash path' }),
      z.record(
        z.string().regex(MODULE_FILE, { error: 'expected a relative file name ending in .rego' }),
        z.string(),
      ),
    )
    .default({}),
  /** Data document path under `systems/{id}/` → JSON value. */
  data: z
    .record(z.string().regex(RELATIVE_PATH, { error: 'expected a relative slash path' }), z.unknown())
    .default({}),
})

export const blueprintSchema = z.strictObject({
  description: z.string().max(4096).default(''),
  systems: z.array(blueprintSystemSchema).min(1).max(100),
})

/** A blueprint as a file or built-in module writes it (defaults optional). */
export type BlueprintInput = z.input<typeof blueprintSchema>
/** A checked blueprint with defaults filled in. */
export type Blueprint = z.output<typeof blueprintSchema>
export type BlueprintSystem = Blueprint['systems'][number]

/** A resource a blueprint made (or found already made): `blueprints.v1.Resource`. */
export interface BlueprintResource {
  id: string
  type: 'system' | 'policy' | 'data'
}
