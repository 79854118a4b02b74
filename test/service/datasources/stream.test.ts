/**
 * `stream`: the keep-latest document on recorded messages of a compacted topic (two partitions,
 * overwrites, tombstones, keyless and non-JSON messages), the byte limit, broker addresses and
 * TLS, and failures named for the status. Against a real Kafka-protocol broker only when
 * REGENT_TEST_KAFKA_BROKERS is set (host:port,…): no broker runs here otherwise.
 */
import { isLosslessNumber, type LosslessNumber } from 'lossless-json'
import { describe, expect, it } from 'vitest'
import { categoryNamed } from '../../../service/datasources/categories.js'
import { RequestGate } from '../../../service/datasources/request-gate.js'
import { connectionOf, readStream, type StreamConfig } from '../../../service/datasources/stream.js'
import { LatestByKey } from '../../../service/datasources/stream-document.js'
import type { StreamRecord, StreamSource } from '../../../service/datasources/stream-source.js'
import { type FetchContext, RunError } from '../../../service/datasources/types.js'
import type { ServiceRepositories } from '../../../store/service/index.js'

const category = categoryNamed('stream')!

const record = (
  partition: number,
  offset: number,
  key: string | null,
  value: string | null,
): StreamRecord => ({
  partition,
  offset: String(offset),
  key: key === null ? null : Buffer.from(key),
  value: value === null ? null : Buffer.from(value),
})

/** Messages as a two-partition topic of user records held them, in offset order per partition. */
const RECORDED: StreamRecord[][] = [
  [
    record(0, 0, 'alice', '{"role": "admin", "team": "a"}'),
    record(0, 1, 'bob', '{"role": "viewer"}'),
    record(0, 2, 'alice', '{"role": "editor", "team": "a"}'),
    record(0, 3, 'bob', null),
  ],
  [
    record(1, 0, 'carol', '{"id": 12345678901234567890}'),
    record(1, 1, null, '{"ignored": true}'),
    record(1, 2, 'dave', 'plain text, not JSON'),
  ],
  [record(0, 4, 'bob', '{"role": "auditor"}'), record(1, 3, '__proto__', '{"polluted": true}')],
]

/** A source replaying recorded batches, as a broker would deliver them. */
function recordedSource(batches: StreamRecord[][], seen: string[] = []): StreamSource {
  return {
    async readToHighWater(topic, onRecords, signal) {
      seen.push(topic)
      for (const batch of batches) {
        signal.throwIfAborted()
        await new Promise((resolve) => setImmediate(resolve))
        onRecords(batch)
      }
    },
  }
}

function context(overrides: Partial<FetchContext> = {}): FetchContext {
  return {
    signal: new AbortController().signal,
    maxBytes: 1024 * 1024,
    maxYamlNodes: 1000,
    secret: async (id, field) => {
      if (id === 'kafka/key') return '-----BEGIN PRIVATE KEY-----\nkey\n-----END PRIVATE KEY-----\n'
      throw new RunError(`secret error: ${field}: secret "${id}" does not exist`)
    },
    login: async () => {
      throw new Error('no logins here')
    },
    gitCredentials: async () => undefined,
    gate: new RequestGate({ rateLimit: Number.POSITIVE_INFINITY, parallel: 10 }),
    dataDir: '/nonexistent',
    datasourceId: 'systems/app/events',
    // The stream category never reads the service's store.
    store: {} as ServiceRepositories,
    ...overrides,
  }
}

const config = (extra: Record<string, unknown> = {}) =>
  category.schema.parse({
    category: 'stream',
    urls: ['kafka://127.0.0.1:9092'],
    topic: 'users',
    ...extra,
  }) as StreamConfig

describe('LatestByKey', () => {
  it('keeps the latest value per key: overwrites win, tombstones delete, keyless messages are skipped', async () => {
    const latest = new LatestByKey(1024)
    for (const batch of RECORDED) latest.add(batch)
    const document = await latest.document()
    expect(Object.keys(document)).toEqual(['alice', 'carol', 'dave', 'bob', '__proto__'])
    expect(document.alice).toEqual({ role: 'editor', team: 'a' })
    // Deleted by the tombstone at offset 3, then set again at offset 4.
    expect(document.bob).toEqual({ role: 'auditor' })
    expect(isLosslessNumber((document.carol as { id: unknown }).id)).toBe(true)
    expect(((document.carol as { id: LosslessNumber }).id as LosslessNumber).value).toBe(
      '12345678901234567890',
    )
    // Not JSON: kept as its text.
    expect(document.dave).toBe('plain text, not JSON')
    expect(Object.hasOwn(document, '__proto__')).toBe(true)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(latest.skipped).toBe(1)
    const bytes = RECORDED.flat().reduce((n, r) => n + (r.key?.length ?? 0) + (r.value?.length ?? 0), 0)
    expect(latest.bytes).toBe(bytes)
  })

  it('drops a key whose last message is a tombstone', async () => {
    const latest = new LatestByKey(1024)
    latest.add([record(0, 0, 'k', '1'), record(0, 1, 'k', null)])
    expect(await latest.document()).toEqual({})
  })

  it('refuses a topic larger than the byte limit', () => {
    const latest = new LatestByKey(20)
    latest.add([record(0, 0, 'k', '0123456789')])
    expect(() => latest.add([record(0, 1, 'k', '0123456789')])).toThrow(
      'size limit: the topic holds more than 20 bytes',
    )
  })
})

describe('readStream', () => {
  it('reads the configured topic into the latest-per-key document', async () => {
    const seen: string[] = []
    const fetched = await readStream(config(), context(), recordedSource(RECORDED, seen))
    expect(seen).toEqual(['users'])
    expect(Object.keys(fetched.content as object)).toEqual(['alice', 'carol', 'dave', 'bob', '__proto__'])
    expect(fetched.size).toBeGreaterThan(0)
  })

  it('fails naming the field when no topic is configured', async () => {
    const { topic: _, ...noTopic } = config()
    await expect(readStream(noTopic as never, context(), recordedSource([]))).rejects.toThrow(
      'config error: topic: set the topic to consume',
    )
  })

  it('names the cause of a failed read', async () => {
    const failing = (err: Error): StreamSource => ({
      readToHighWater: async () => {
        throw err
      },
    })
    await expect(
      readStream(config(), context(), failing(new Error('This server does not host this topic-partition'))),
    ).rejects.toThrow('stream error: topic "users" does not exist on the brokers')
    await expect(
      readStream(
        config(),
        context(),
        failing(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), {})),
      ),
    ).rejects.toThrow(/^connection error: the brokers did not answer/)
    const tls = Object.assign(new Error('self-signed certificate'), { code: 'SELF_SIGNED_CERT_IN_CHAIN' })
    await expect(readStream(config(), context(), failing(tls))).rejects.toThrow(
      'TLS error: SELF_SIGNED_CERT_IN_CHAIN: self-signed certificate',
    )
  })

  it('keeps the byte limit across batches', async () => {
    await expect(readStream(config(), context({ maxBytes: 40 }), recordedSource(RECORDED))).rejects.toThrow(
      /^size limit/,
    )
  })
})

describe('stream configuration', () => {
  it('turns broker URLs into host:port and TLS on by scheme or by TLSSettings', async () => {
    expect(
      await connectionOf(config({ urls: ['kafka://k1:9092', 'k2:9093', '[::1]:9094'] }), context()),
    ).toEqual({
      brokers: ['k1:9092', 'k2:9093', '::1:9094'],
    })
    expect(await connectionOf(config({ urls: ['kafkas://k1:9093'] }), context())).toEqual({
      brokers: ['k1:9093'],
      tls: { rejectUnauthorized: true },
    })
    const mtls = await connectionOf(
      config({ ca_certificate: 'CA', mtls_certificate: 'CERT', mtls_private_key_secret_id: 'kafka/key' }),
      context(),
    )
    expect(mtls.tls).toMatchObject({ ca: 'CA', cert: 'CERT', rejectUnauthorized: true })
    expect(String(mtls.tls?.key)).toContain('BEGIN PRIVATE KEY')
    await expect(
      connectionOf(config({ mtls_certificate: 'CERT', mtls_private_key_secret_id: 'kafka/gone' }), context()),
    ).rejects.toThrow('secret error: mtls_private_key_secret_id')
  })

  it('refuses broker addresses that are not host:port', () => {
    for (const url of ['http://k1:9092', 'k1', 'kafka://k1', 'k1:port']) {
      const result = category.schema.safeParse({ category: 'stream', urls: [url] })
      expect(result.success, url).toBe(false)
      expect(result.error?.issues[0]?.message).toBe('expected a broker as host:port or kafka://host:port')
    }
  })
})

const brokers = process.env.REGENT_TEST_KAFKA_BROKERS
if (!brokers) console.log('skipping the real-broker stream test: REGENT_TEST_KAFKA_BROKERS is not set')

describe.skipIf(!brokers)('stream against a real broker (REGENT_TEST_KAFKA_BROKERS)', () => {
  it('reads a topic up to its high-water mark, latest value per key', async () => {
    const { Kafka, logLevel } = await import('kafkajs')
    const list = brokers!.split(',')
    const kafka = new Kafka({ clientId: 'regent-test', brokers: list, logLevel: logLevel.NOTHING })
    const topic = `regent-test-${Date.now()}`
    const admin = kafka.admin()
    await admin.connect()
    await admin.createTopics({ topics: [{ topic, numPartitions: 2 }], waitForLeaders: true })
    await admin.disconnect()
    const producer = kafka.producer()
    await producer.connect()
    await producer.send({
      topic,
      messages: [
        { key: 'alice', value: '{"role":"admin"}' },
        { key: 'bob', value: '{"role":"viewer"}' },
        { key: 'alice', value: '{"role":"editor"}' },
        { key: 'bob', value: null },
        { key: 'carol', value: 'not json' },
      ],
    })
    await producer.disconnect()
    const signal = AbortSignal.timeout(60_000)
    const fetched = await category.fetch!(
      category.schema.parse({ category: 'stream', urls: list, topic }),
      context({ signal }),
    )
    expect(fetched.content).toEqual({ alice: { role: 'editor' }, carol: 'not json' })
  }, 90_000)
})

describe('stream through kafkajs', () => {
  it('fails with a connection error when no broker listens', async () => {
    const { createServer } = await import('node:net')
    // A port that was free a moment ago: bound, then closed.
    const server = createServer()
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const port = (server.address() as { port: number }).port
    await new Promise((resolve) => server.close(resolve))
    const started = Date.now()
    await expect(
      category.fetch!(
        config({ urls: [`kafka://127.0.0.1:${port}`] }),
        context({ signal: AbortSignal.timeout(20_000) }),
      ),
    ).rejects.toThrow(/^connection error: the brokers did not answer/)
    expect(Date.now() - started).toBeLessThan(20_000)
  }, 30_000)
})
