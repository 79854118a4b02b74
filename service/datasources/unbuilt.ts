/**
 * The categories this build validates exactly but does not fetch yet (issue 20): a PUT naming
 * one is checked against the spec's fields first (so a mistake is reported as such), then refused
 * with 501 `not_implemented` instead of being stored and silently never run. When a category is
 * built it moves to a file of its own with its `fetch`.
 */
import { z } from 'zod'
import {
  bothOrNeitherFilter,
  common,
  mtlsPair,
  poller,
  rateLimiter,
  regoFiltering,
  tlsSettings,
} from './mixins.js'
import { type DatasourceCategory, defineCategory } from './types.js'

const text = () => z.string({ error: 'expected a string' })

const stream = z
  .strictObject({
    category: z.literal('stream'),
    ...common,
    ...poller,
    ...regoFiltering,
    ...tlsSettings,
    urls: z
      .array(text().min(1, { error: 'expected a broker address' }), { error: 'required: the brokers' })
      .min(1, {
        error: 'expected at least one broker',
      }),
    topic: text().optional(),
  })
  .superRefine(bothOrNeitherFilter)
  .superRefine(mtlsPair)

const clusterResources = z
  .strictObject({
    category: z.literal('cluster/resources'),
    ...common,
    // NOTE(datasources): the spec makes on_premises required and true here: the cluster is read from inside.
    on_premises: z.literal(true, { error: 'required: must be true (cluster/resources runs on premises)' }),
    ...rateLimiter,
    ...poller,
    ...regoFiltering,
    masks: z
      .record(text(), z.array(text()), { error: 'expected a map of resource group to property paths' })
      .optional(),
    namespaces: z
      .record(text(), z.boolean({ error: 'expected true or false' }), {
        error: 'expected a map of namespace to true/false',
      })
      .optional(),
    selectors: z
      .record(text(), text(), { error: 'expected a map of resource group to field selector' })
      .optional(),
  })
  .superRefine(bothOrNeitherFilter)

const unbuilt = (category: string, schema: z.ZodType<Record<string, unknown>>): DatasourceCategory =>
  defineCategory({ category, schema, mode: 'poll' })

/** Categories validated but not fetched by this build, in the spec's order. */
export const UNBUILT_CATEGORIES: readonly DatasourceCategory[] = [
  unbuilt('stream', stream),
  unbuilt('cluster/resources', clusterResources),
]
