/**
 * Category `http`: one request per run to `url` (GET, POST or QUERY) through undici, with
 * `headers` whose values come from the configuration or from secrets, a JSON `body` or a base64
 * `raw_body`, and TLSSettings (a custom CA, a client certificate whose key is a secret, or no
 * verification at all). Redirects are not followed (a 3xx fails the run and names the target),
 * only http(s) URLs are accepted, and the body is read up to the run's byte limit.
 */
import { Agent, request, errors as undiciErrors } from 'undici'
import { z } from 'zod'
import { concatYielding } from './bytes-yielding.js'
import { formatOf } from './decode.js'
import { decodeDocument, OFF_THREAD_BYTES } from './decode-off-thread.js'
import {
  bothOrNeitherFilter,
  common,
  mtlsPair,
  poller,
  regoFiltering,
  requiredText,
  secretId,
  tlsSettings,
} from './mixins.js'
import { defineCategory, type FetchContext, type Fetched, RunError } from './types.js'

const httpUrl = requiredText('the URL to read').refine(
  (text) => {
    try {
      return ['http:', 'https:'].includes(new URL(text).protocol)
    } catch {
      return false
    }
  },
  { error: 'expected an absolute http:// or https:// URL' },
)

const header = z
  .strictObject(
    {
      name: requiredText('the header name').regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, {
        error: 'expected an HTTP header name',
      }),
      secret_id: secretId().optional(),
      value: z.string({ error: 'expected a string' }).optional(),
    },
    { error: 'expected an object {name, value} or {name, secret_id}' },
  )
  .superRefine((h, ctx) => {
    if ((h.secret_id === undefined) === (h.value === undefined))
      ctx.addIssue({ code: 'custom', path: ['value'], message: 'set exactly one of value and secret_id' })
  })

const isJsonText = (text: string) => {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

const schema = z
  .strictObject({
    category: z.literal('http'),
    ...common,
    ...poller,
    ...regoFiltering,
    ...tlsSettings,
    url: httpUrl,
    method: z.enum(['GET', 'POST', 'QUERY'], { error: 'expected one of GET, POST, QUERY' }).default('GET'),
    headers: z.array(header, { error: 'expected an array of {name, value|secret_id}' }).optional(),
    body: z
      .string({ error: 'expected a string' })
      .refine(isJsonText, { error: 'expected JSON text' })
      .optional(),
    raw_body: z
      .string({ error: 'expected a string' })
      .regex(/^[A-Za-z0-9+/]*={0,2}$/, { error: 'expected base64 text' })
      .optional(),
  })
  .superRefine(bothOrNeitherFilter)
  .superRefine(mtlsPair)
  .superRefine((config, ctx) => {
    if (config.body !== undefined && config.raw_body !== undefined)
      ctx.addIssue({ code: 'custom', path: ['raw_body'], message: 'set either body or raw_body, not both' })
  })

type HttpConfig = z.output<typeof schema>

/** The TLS options of the connection (undefined: the system's roots, verified). */
async function tlsOptions(config: HttpConfig, ctx: FetchContext) {
  const key =
    config.mtls_private_key_secret_id === undefined
      ? undefined
      : await ctx.secret(config.mtls_private_key_secret_id, 'mtls_private_key_secret_id')
  return {
    ...(config.ca_certificate !== undefined ? { ca: config.ca_certificate } : {}),
    ...(config.mtls_certificate !== undefined ? { cert: config.mtls_certificate, key } : {}),
    rejectUnauthorized: !config.skip_tls_verification,
  }
}

async function headersOf(config: HttpConfig, ctx: FetchContext): Promise<Record<string, string>> {
  const out: Record<string, string> = {}
  if (config.body !== undefined) out['content-type'] = 'application/json'
  for (const [i, h] of (config.headers ?? []).entries()) {
    out[h.name.toLowerCase()] = h.value ?? (await ctx.secret(h.secret_id!, `headers.${i}.secret_id`))
  }
  return out
}

/** Why a request failed, in words a user can act on (never the secret headers). */
function describeFailure(err: unknown, url: string): string {
  const code = (err as { code?: string }).code ?? (err as { cause?: { code?: string } }).cause?.code
  const message = err instanceof Error ? err.message : String(err)
  if (
    err instanceof undiciErrors.RequestAbortedError ||
    (err as Error)?.name === 'AbortError' ||
    (err as Error)?.name === 'TimeoutError'
  )
    return `timeout: ${url} did not answer in time`
  if (code && /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY|ALTNAME/.test(code))
    return `TLS error: ${code}: ${message}`
  if (code) return `connection error: ${url}: ${code}`
  return `request error: ${url}: ${message}`
}

async function fetchHttp(config: HttpConfig, ctx: FetchContext): Promise<Fetched> {
  const dispatcher = new Agent({ connect: await tlsOptions(config, ctx) })
  const url = config.url
  try {
    const headers = await headersOf(config, ctx)
    const body =
      config.body !== undefined
        ? config.body
        : config.raw_body !== undefined
          ? Buffer.from(config.raw_body, 'base64')
          : undefined
    const response = await ctx.gate
      .run(
        // undici's request never follows redirects (that is an interceptor we do not add).
        () => request(url, { method: config.method, headers, body, dispatcher, signal: ctx.signal }),
        ctx.signal,
      )
      .catch((err: unknown) => {
        throw new RunError(describeFailure(ctx.signal.aborted ? ctx.signal.reason : err, url))
      })
    const { statusCode } = response
    if (statusCode >= 300) {
      await response.body.dump().catch(() => {})
      const location = response.headers.location
      if (statusCode < 400 && location !== undefined)
        throw new RunError(
          `http error: ${url} redirects (${statusCode}) to ${String(location)}; redirects are not followed, configure the final URL`,
        )
      throw new RunError(`http error: ${config.method} ${url} answered ${statusCode}`)
    }
    const chunks: Buffer[] = []
    let size = 0
    try {
      for await (const chunk of response.body) {
        size += (chunk as Buffer).byteLength
        if (size > ctx.maxBytes) {
          response.body.destroy()
          throw new RunError(`size limit: ${url} answered more than ${ctx.maxBytes} bytes`)
        }
        chunks.push(chunk as Buffer)
      }
    } catch (err) {
      if (err instanceof RunError) throw err
      throw new RunError(describeFailure(ctx.signal.aborted ? ctx.signal.reason : err, url))
    }
    const contentType = response.headers['content-type']
    const format = formatOf(Array.isArray(contentType) ? contentType[0] : contentType, new URL(url).pathname)
    const bytes = size > OFF_THREAD_BYTES ? await concatYielding(chunks, size) : Buffer.concat(chunks)
    chunks.length = 0
    if (ctx.deferLargeDecode && bytes.byteLength > OFF_THREAD_BYTES)
      return { content: undefined, size, undecoded: { bytes, format, where: url } }
    const content = await decodeDocument(bytes, format, url, ctx.maxYamlNodes, { signal: ctx.signal })
    return { content, size }
  } finally {
    await dispatcher.close().catch(() => {})
  }
}

/** The `http` category. */
export const httpCategory = defineCategory({ category: 'http', schema, mode: 'poll', fetch: fetchHttp })
