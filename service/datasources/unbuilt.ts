/**
 * The categories this build validates exactly but does not fetch yet (issue 20): a PUT naming
 * one is checked against the spec's fields first (so a mistake is reported as such), then refused
 * with 501 `not_implemented` instead of being stored and silently never run. When a category is
 * built it moves to a file of its own with its `fetch`.
 */
import { z } from 'zod'
import { common, poller } from './mixins.js'
import { type DatasourceCategory, defineCategory } from './types.js'

const policyLibrary = z.strictObject({ category: z.literal('policy-library'), ...common, ...poller })

const unbuilt = (category: string, schema: z.ZodType<Record<string, unknown>>): DatasourceCategory =>
  defineCategory({ category, schema, mode: 'poll' })

/** Categories validated but not fetched by this build, in the spec's order. */
export const UNBUILT_CATEGORIES: readonly DatasourceCategory[] = [unbuilt('policy-library', policyLibrary)]
