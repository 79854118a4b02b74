/**
 * Category `stream`: the latest value of every key of a Kafka-protocol topic (stream-document.ts
 * says how messages become the document). Each poll reads `topic` from its earliest offset to the
 * high-water mark at the poll's start (kafka-source.ts), within the run's byte limit and timeout.
 * `urls` are the bootstrap brokers, `host:port` with an optional scheme: `kafka://` plain,
 * `kafkas://`, `kafka+ssl://` or `ssl://` over TLS. TLSSettings (a custom CA, a client certificate
 * whose key is a secret, `skip_tls_verification`) also turn TLS on. The spec names no SASL
 * fields, so brokers that require SASL cannot be read by this category.
 */
import type { ConnectionOptions } from 'node:tls'
import { z } from 'zod'
import { kafkaSource } from './kafka-source.js'
import { bothOrNeitherFilter, common, mtlsPair, poller, regoFiltering, tlsSettings } from './mixins.js'
import { LatestByKey } from './stream-document.js'
import type { StreamConnection, StreamSource } from './stream-source.js'
import { defineCategory, type FetchContext, type Fetched, RunError } from './types.js'

const text = () => z.string({ error: 'expected a string' })

/** `[scheme://]host:port`, the host a name, an IPv4 address or a bracketed IPv6 address. */
const BROKER =
  /^(?:(kafka|kafkas|kafka\+ssl|ssl|plaintext):\/\/)?(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})\/?$/i
const TLS_SCHEMES = new Set(['kafkas', 'kafka+ssl', 'ssl'])

const schema = z
  .strictObject({
    category: z.literal('stream'),
    ...common,
    ...poller,
    ...regoFiltering,
    ...tlsSettings,
    urls: z
      .array(text().regex(BROKER, { error: 'expected a broker as host:port or kafka://host:port' }), {
        error: 'required: the brokers',
      })
      .min(1, { error: 'expected at least one broker' }),
    topic: text().min(1, { error: 'expected a topic name' }).optional(),
  })
  .superRefine(bothOrNeitherFilter)
  .superRefine(mtlsPair)

export type StreamConfig = z.output<typeof schema>

/** The brokers and TLS options of `config`. */
export async function connectionOf(config: StreamConfig, ctx: FetchContext): Promise<StreamConnection> {
  let tlsByScheme = false
  const brokers = config.urls.map((url) => {
    const [, scheme, host, port] = BROKER.exec(url)!
    if (scheme && TLS_SCHEMES.has(scheme.toLowerCase())) tlsByScheme = true
    return `${host!.replace(/^\[|\]$/g, '')}:${port}`
  })
  const tlsBySettings =
    config.ca_certificate !== undefined ||
    config.mtls_certificate !== undefined ||
    config.skip_tls_verification
  if (!tlsByScheme && !tlsBySettings) return { brokers }
  const key =
    config.mtls_private_key_secret_id === undefined
      ? undefined
      : await ctx.secret(config.mtls_private_key_secret_id, 'mtls_private_key_secret_id')
  const tls: ConnectionOptions = {
    ...(config.ca_certificate !== undefined ? { ca: config.ca_certificate } : {}),
    ...(config.mtls_certificate !== undefined ? { cert: config.mtls_certificate, key } : {}),
    rejectUnauthorized: !config.skip_tls_verification,
  }
  return { brokers, tls }
}

/** Why a read failed, in words a user can act on. */
function describeFailure(err: unknown, topic: string): string {
  const message = err instanceof Error ? err.message : String(err)
  const cause = (err as { cause?: unknown }).cause
  const detail = cause instanceof Error && cause.message !== message ? `: ${cause.message}` : ''
  const code = (err as { code?: string }).code ?? (cause as { code?: string } | undefined)?.code
  if (code && /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY|ALTNAME/.test(code))
    return `TLS error: ${code}: ${message}`
  if (/not host this topic|UNKNOWN_TOPIC/i.test(`${message}${detail}`))
    return `stream error: topic "${topic}" does not exist on the brokers`
  if (/connect|ECONNREFUSED|ENOTFOUND|timed? ?out/i.test(`${message}${detail}`))
    return `connection error: the brokers did not answer: ${message}${detail}`
  return `stream error: topic "${topic}": ${message}${detail}`
}

/** Reads `config`'s topic through `source` into its latest-per-key document. */
export async function readStream(
  config: StreamConfig,
  ctx: FetchContext,
  source: StreamSource,
): Promise<Fetched> {
  if (config.topic === undefined) throw new RunError('config error: topic: set the topic to consume')
  const topic = config.topic
  const latest = new LatestByKey(ctx.maxBytes)
  try {
    await ctx.gate.run(
      () => source.readToHighWater(topic, (records) => latest.add(records), ctx.signal),
      ctx.signal,
    )
  } catch (err) {
    if (err instanceof RunError) throw err
    throw new RunError(describeFailure(ctx.signal.aborted ? ctx.signal.reason : err, topic))
  }
  return { content: await latest.document(ctx.signal), size: latest.bytes }
}

async function fetchStream(config: StreamConfig, ctx: FetchContext): Promise<Fetched> {
  return readStream(config, ctx, kafkaSource(await connectionOf(config, ctx)))
}

/** The `stream` category. */
export const streamCategory = defineCategory({ category: 'stream', schema, mode: 'poll', fetch: fetchStream })
