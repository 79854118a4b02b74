/**
 * The categories this build validates exactly but does not fetch yet (issue 20): a PUT naming
 * one is checked against the spec's fields first (so a mistake is reported as such), then refused
 * with 501 `not_implemented` instead of being stored and silently never run. When a category is
 * built it moves to a file of its own with its `fetch`.
 */
import { z } from 'zod'
import {
  bothOrNeitherFilter,
  cloudCommon,
  common,
  mtlsPair,
  poller,
  rateLimiter,
  regoFiltering,
  requiredText,
  secretId,
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

const idp = z
  .strictObject({
    category: z.literal('idp'),
    ...common,
    ...poller,
    ...regoFiltering,
    idp_tenant: text().regex(/^https?:\/\/[^/]/i, {
      error: 'expected a URL with its protocol, e.g. https://example.okta.com',
    }),
    idp_client_id: requiredText('the client id'),
    idp_client_secret: secretId(),
    idp_enable_apps: z.boolean({ error: 'expected true or false' }).optional(),
    idp_enable_groups: z.boolean({ error: 'expected true or false' }).optional(),
    idp_enable_roles: z.boolean({ error: 'expected true or false' }).optional(),
    idp_enable_users: z.boolean({ error: 'expected true or false' }).optional(),
  })
  .superRefine(bothOrNeitherFilter)

const policyLibrary = z.strictObject({ category: z.literal('policy-library'), ...common, ...poller })

const cloudEcr = z
  .strictObject({
    category: z.literal('cloud/ecr'),
    ...common,
    ...rateLimiter,
    ...poller,
    ...regoFiltering,
    ...cloudCommon,
    RegistryId: text().optional(),
  })
  .superRefine(bothOrNeitherFilter)

const unbuilt = (category: string, schema: z.ZodType<Record<string, unknown>>): DatasourceCategory =>
  defineCategory({ category, schema, mode: 'poll' })

/** Categories validated but not fetched by this build, in the spec's order. */
export const UNBUILT_CATEGORIES: readonly DatasourceCategory[] = [
  unbuilt('cloud/ecr', cloudEcr),
  unbuilt('stream', stream),
  unbuilt('cluster/resources', clusterResources),
  unbuilt('idp', idp),
  unbuilt('policy-library', policyLibrary),
]
