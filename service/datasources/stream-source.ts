/**
 * What the `stream` category needs from a message broker, kept apart from the Kafka client
 * (kafka-source.ts) so the keep-latest logic is tested on recorded messages and another client
 * could take its place.
 */
import type { ConnectionOptions } from 'node:tls'

/** One message of a topic partition as stored by the broker. */
export interface StreamRecord {
  partition: number
  offset: string
  /** Null for a message without a key. */
  key: Buffer | null
  /** Null for a tombstone (the key was deleted). */
  value: Buffer | null
}

/** Where the brokers are and how to reach them. */
export interface StreamConnection {
  /** `host:port` of each bootstrap broker. */
  brokers: string[]
  /** TLS options when the brokers are reached over TLS. */
  tls?: ConnectionOptions
}

/** Reads a topic's messages. */
export interface StreamSource {
  /**
   * Calls `onRecords` with the messages of `topic`, each partition in offset order, from its
   * earliest offset up to its high-water mark as it was when the call started (messages produced
   * meanwhile are left for the next poll); resolves when every partition reached that mark.
   * An error thrown by `onRecords` stops the read and rejects with it.
   * @throws when `signal` aborts, the brokers cannot be reached or the topic does not exist.
   */
  readToHighWater(
    topic: string,
    onRecords: (records: StreamRecord[]) => void,
    signal: AbortSignal,
  ): Promise<void>
}
