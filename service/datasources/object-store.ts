/**
 * Categories `cloud/objstore` and `store2/content`: the `.json`, `.yaml`/`.yml` and `.xml`
 * objects under `path` of an S3-compatible bucket, listed with ListObjectsV2 (every page, by
 * continuation token) and read with GET, every request signed with SigV4 (aws4fetch) and passing
 * the run's request gate (`rate_limit`). Path-style URLs on `endpoint` (default
 * `https://s3.<region>.amazonaws.com`). Each object's document is placed at its key relative to
 * `path`, without the extension, as `git/content` does. `credentials` names a login secret
 * (../secrets/login.ts: its name is the access key id, its value the secret access key). Temporary
 * credentials with a session token are not supported: use long-lived keys (docs/datasources.md).
 */
import { AwsClient } from 'aws4fetch'
import { XMLParser } from 'fast-xml-parser'
import { z } from 'zod'
import { DataConflictError, placeAt } from '../data-tree.js'
import { emptyUserProblem } from '../secrets/login.js'
import { formatOf } from './decode.js'
import { decodeDocument } from './decode-off-thread.js'
import {
  bothOrNeitherFilter,
  common,
  objectStoreCommon,
  poller,
  rateLimiter,
  regoFiltering,
} from './mixins.js'
import {
  type DatasourceCategory,
  defineCategory,
  type FetchContext,
  type Fetched,
  RunError,
} from './types.js'

const schemaOf = (category: 'cloud/objstore' | 'store2/content') =>
  z
    .strictObject({
      category: z.literal(category),
      ...common,
      ...poller,
      ...rateLimiter,
      ...regoFiltering,
      ...objectStoreCommon,
    })
    .superRefine(bothOrNeitherFilter)

type ObjectStoreConfig = z.output<ReturnType<typeof schemaOf>>

const CONTENT_OBJECT = /\.(json|ya?ml|xml)$/i
/** Objects read per run at most. */
export const MAX_OBJECTS = 10_000

const listParser = new XMLParser({
  processEntities: false,
  parseTagValue: false,
  isArray: (name) => name === 'Contents',
})

/** The object-store common fields the signed requests read. */
type BucketConfig = Pick<ObjectStoreConfig, 'bucket' | 'credentials' | 'endpoint' | 'region'>

/** A SigV4 client with the login secret `credentials` names (access key id = its name). */
export async function clientOf(config: BucketConfig, ctx: FetchContext): Promise<AwsClient> {
  const { user, secret } = await ctx.login(config.credentials, 'credentials')
  if (user === '')
    throw new RunError(
      `secret error: credentials: ${emptyUserProblem(config.credentials, 'access key id', 'secret access key')}`,
    )
  return new AwsClient({
    accessKeyId: user,
    secretAccessKey: secret,
    service: 's3',
    region: config.region ?? 'us-east-1',
  })
}

/** The bucket's path-style URL on `endpoint` (default AWS for `region`). */
export function bucketUrl(config: BucketConfig): string {
  const endpoint = (config.endpoint ?? `https://s3.${config.region ?? 'us-east-1'}.amazonaws.com`).replace(
    /\/+$/,
    '',
  )
  if (!/^https?:\/\//i.test(endpoint))
    throw new RunError(`config error: endpoint ${endpoint} is not an http(s) URL`)
  return `${endpoint}/${encodeURIComponent(config.bucket)}`
}

/** One signed GET through the run's gate; a refusal becomes a RunError naming status and S3 code. */
export async function send(client: AwsClient, url: string, ctx: FetchContext): Promise<Uint8Array> {
  const response = await ctx.gate
    .run(() => client.fetch(url, { signal: ctx.signal }), ctx.signal)
    .catch((err: unknown) => {
      if (ctx.signal.aborted) throw new RunError(`timeout: ${url} did not answer in time`)
      throw new RunError(`connection error: ${url}: ${err instanceof Error ? err.message : String(err)}`)
    })
  const bytes = response.ok ? await boundedBody(response, url, ctx.maxBytes) : await errorBody(response)
  if (!response.ok) {
    const code = /<Code>([^<]+)<\/Code>/.exec(new TextDecoder().decode(bytes))?.[1]
    const kind = response.status === 401 || response.status === 403 ? 'auth error' : 'http error'
    throw new RunError(`${kind}: ${url.split('?')[0]} answered ${response.status}${code ? ` ${code}` : ''}`)
  }
  return bytes
}

/** The body of a successful answer, refused as soon as it passes `limit` bytes (never held whole). */
async function boundedBody(response: Response, url: string, limit: number): Promise<Uint8Array> {
  const tooLarge = () => new RunError(`size limit: ${url.split('?')[0]} is larger than ${limit} bytes`)
  if (Number(response.headers.get('content-length') ?? 0) > limit) {
    await response.body?.cancel()
    throw tooLarge()
  }
  const chunks: Uint8Array[] = []
  let size = 0
  for await (const chunk of response.body ?? []) {
    size += chunk.byteLength
    if (size > limit) throw tooLarge()
    chunks.push(chunk)
  }
  return Buffer.concat(chunks, size)
}

/** The first bytes of an error answer (enough for its `<Code>`). */
async function errorBody(response: Response): Promise<Uint8Array> {
  return new Uint8Array(await response.arrayBuffer()).slice(0, 4096)
}

/** Every key under `prefix`, page after page. */
async function listKeys(
  client: AwsClient,
  base: string,
  prefix: string,
  ctx: FetchContext,
): Promise<string[]> {
  const keys: string[] = []
  let token: string | undefined
  do {
    const query = new URLSearchParams({ 'list-type': '2', prefix })
    if (token) query.set('continuation-token', token)
    const page = listParser.parse(new TextDecoder().decode(await send(client, `${base}?${query}`, ctx))) as {
      ListBucketResult?: {
        Contents?: Array<{ Key?: string }>
        IsTruncated?: string
        NextContinuationToken?: string
      }
    }
    const result = page.ListBucketResult
    if (!result) throw new RunError('decode error: the bucket listing is not a ListBucketResult')
    for (const item of result.Contents ?? []) if (typeof item.Key === 'string') keys.push(item.Key)
    if (keys.length > MAX_OBJECTS)
      throw new RunError(`size limit: more than ${MAX_OBJECTS} objects under ${prefix || 'the bucket'}`)
    token = result.IsTruncated === 'true' ? result.NextContinuationToken : undefined
  } while (token)
  return keys
}

/** The URL of object `key` in the bucket at `base`, each segment encoded. */
export function objectUrl(base: string, key: string): string {
  return `${base}/${key.split('/').map(encodeURIComponent).join('/')}`
}

async function fetchObjects(config: ObjectStoreConfig, ctx: FetchContext): Promise<Fetched> {
  const client = await clientOf(config, ctx)
  const base = bucketUrl(config)
  const prefix = (config.path ?? '').replace(/^\/+/, '').replace(/\/*$/, config.path ? '/' : '')
  const keys = (await listKeys(client, base, prefix, ctx)).filter((k) => CONTENT_OBJECT.test(k)).sort()
  const content: Record<string, unknown> = {}
  let size = 0
  for (const key of keys) {
    const bytes = await send(client, objectUrl(base, key), ctx)
    size += bytes.byteLength
    if (size > ctx.maxBytes) throw new RunError(`size limit: the objects exceed ${ctx.maxBytes} bytes`)
    const relative = key.slice(prefix.length)
    const document = await decodeDocument(bytes, formatOf(undefined, key), key, ctx.maxYamlNodes, {
      signal: ctx.signal,
    })
    try {
      placeAt(content, relative.replace(CONTENT_OBJECT, '').split('/').filter(Boolean), document, key)
    } catch (err) {
      if (err instanceof DataConflictError) throw new RunError(`merge error: ${err.message}`)
      throw err
    }
  }
  return { content, size }
}

const objectStoreCategory = (category: 'cloud/objstore' | 'store2/content'): DatasourceCategory =>
  defineCategory({ category, schema: schemaOf(category), mode: 'poll', fetch: fetchObjects })

/** The `cloud/objstore` category. */
export const cloudObjectStoreCategory = objectStoreCategory('cloud/objstore')
/** The `store2/content` category (the same reader; another store in the spec). */
export const store2ContentCategory = objectStoreCategory('store2/content')
