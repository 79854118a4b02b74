/**
 * A StreamSource (stream-source.ts) on the Kafka protocol through kafkajs, the only file that
 * knows the client. kafkajs is loaded on the first run, so a build without it still starts and
 * a stream datasource fails its run saying so.
 *
 * One read: the admin client asks the partitions' low and high offsets; a consumer in a group of
 * its own (a fresh id per read, nothing committed, so reads never share or move a position) starts
 * from the earliest offset and stops each partition at the high-water mark seen at the start.
 */
import { randomUUID } from 'node:crypto'
import type { StreamConnection, StreamRecord, StreamSource } from './stream-source.js'

/** How long connecting to one broker may take. */
const CONNECT_TIMEOUT_MS = 10_000
const REQUEST_TIMEOUT_MS = 30_000

type KafkaModule = typeof import('kafkajs')

async function loadKafka(): Promise<KafkaModule> {
  try {
    return await import('kafkajs')
  } catch {
    throw new Error('the Kafka client (npm package kafkajs) is not installed in this build')
  }
}

/** A source reading from the brokers of `connection`. */
export function kafkaSource(connection: StreamConnection): StreamSource {
  return {
    async readToHighWater(topic, onRecords, signal) {
      const { Kafka, logLevel } = await loadKafka()
      signal.throwIfAborted()
      const kafka = new Kafka({
        clientId: 'regent-datasource',
        brokers: connection.brokers,
        ...(connection.tls ? { ssl: connection.tls } : {}),
        connectionTimeout: CONNECT_TIMEOUT_MS,
        requestTimeout: REQUEST_TIMEOUT_MS,
        retry: { retries: 2 },
        logLevel: logLevel.NOTHING,
      })
      const admin = kafka.admin()
      await admin.connect()
      let offsets: Awaited<ReturnType<typeof admin.fetchTopicOffsets>>
      try {
        offsets = await admin.fetchTopicOffsets(topic)
      } finally {
        await admin.disconnect().catch(() => {})
      }
      /** Partition → high-water mark at the start, for partitions holding messages. */
      const remaining = new Map<number, bigint>()
      for (const o of offsets) if (BigInt(o.high) > BigInt(o.low)) remaining.set(o.partition, BigInt(o.high))
      if (remaining.size === 0) return
      signal.throwIfAborted()
      const consumer = kafka.consumer({
        groupId: `regent-datasource-${randomUUID()}`,
        allowAutoTopicCreation: false,
      })
      try {
        await consumer.connect()
        await consumer.subscribe({ topics: [topic], fromBeginning: true })
        await new Promise<void>((resolve, reject) => {
          const stop = () => reject(signal.reason)
          if (signal.aborted) return stop()
          signal.addEventListener('abort', stop, { once: true })
          const fail = (err: unknown) => {
            signal.removeEventListener('abort', stop)
            reject(err)
          }
          consumer.on(consumer.events.CRASH, (event) => fail(event.payload.error))
          /** Marks `partition` read once a batch reached the high-water mark seen at the start. */
          const reached = (partition: number, lastOffset: string) => {
            const high = remaining.get(partition)
            if (high === undefined || BigInt(lastOffset) < high - 1n) return
            remaining.delete(partition)
            consumer.pause([{ topic, partitions: [partition] }])
            if (remaining.size === 0) {
              signal.removeEventListener('abort', stop)
              resolve()
            }
          }
          // A batch of transaction markers only never reaches eachBatch, but ends a batch all the same.
          consumer.on(consumer.events.END_BATCH_PROCESS, ({ payload }) =>
            reached(payload.partition, payload.lastOffset),
          )
          consumer
            .run({
              autoCommit: false,
              eachBatch: async ({ batch }) => {
                const high = remaining.get(batch.partition)
                if (high === undefined) return
                const records: StreamRecord[] = []
                for (const m of batch.messages) {
                  if (BigInt(m.offset) >= high) break
                  records.push({ partition: batch.partition, offset: m.offset, key: m.key, value: m.value })
                }
                try {
                  onRecords(records)
                } catch (err) {
                  fail(err)
                  return
                }
                reached(batch.partition, batch.lastOffset())
              },
            })
            .catch(fail)
        })
      } finally {
        await consumer.disconnect().catch(() => {})
      }
    },
  }
}
