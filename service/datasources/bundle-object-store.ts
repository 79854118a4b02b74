/**
 * Categories `bundle/objstore` and `store2/bundle`: one `.tar.gz` bundle object at `path` of an
 * S3-compatible bucket, read with a SigV4-signed GET through the same code as `cloud/objstore`
 * (object-store.ts: login secret, path-style `endpoint`, the run's gate, the body refused past the
 * run's byte limit while it streams). The bundle's data becomes the datasource's document
 * (bundle-content.ts says what is kept and what is refused).
 */
import { z } from 'zod'
import { bundleContent } from './bundle-content.js'
import { common, objectStoreCommon, poller, rateLimiter, requiredText } from './mixins.js'
import { bucketUrl, clientOf, objectUrl, send } from './object-store.js'
import {
  type DatasourceCategory,
  defineCategory,
  type FetchContext,
  type Fetched,
  RunError,
} from './types.js'

type BundleCategoryName = 'bundle/objstore' | 'store2/bundle'

const schemaOf = (category: BundleCategoryName) =>
  z.strictObject({
    category: z.literal(category),
    ...common,
    ...poller,
    ...rateLimiter,
    ...objectStoreCommon,
    path: requiredText('the bundle object path'),
  })

type BundleObjectConfig = z.output<ReturnType<typeof schemaOf>>

async function fetchBundleObject(config: BundleObjectConfig, ctx: FetchContext): Promise<Fetched> {
  const key = config.path.replace(/^\/+/, '')
  if (key === '' || key.endsWith('/'))
    throw new RunError(`config error: path: ${JSON.stringify(config.path)} names no object`)
  const client = await clientOf(config, ctx)
  const bytes = await send(client, objectUrl(bucketUrl(config), key), ctx)
  return bundleContent(bytes, key, ctx)
}

const bundleObjectCategory = (category: BundleCategoryName): DatasourceCategory =>
  defineCategory({ category, schema: schemaOf(category), mode: 'poll', fetch: fetchBundleObject })

/** The `bundle/objstore` category. */
export const bundleObjectStoreCategory = bundleObjectCategory('bundle/objstore')
/** The `store2/bundle` category (the same reader; another store in the spec). */
export const store2BundleCategory = bundleObjectCategory('store2/bundle')
