/**
 * The decision events of the service-ingest bench (service-ingest.bench.ts), shared with its
 * sender process (ingest-senders.ts) so that both build the same batches.
 */

/** Events per upload (and per raw transaction). */
export const BATCH = 500

/** An OPA decision event of ~600 bytes (a number beyond 2^53 included, as OPA's req_id is). */
export function event(id: string, i: number, baseMs: number): string {
  const result = i % 5 === 0 ? 'true' : i % 5 === 1 ? 'false' : '{"allowed":true}'
  return `{"decision_id":"${id}","labels":{"id":"agent-${i % 7}","version":"1.0.0"},"path":"app/authz/allow","input":{"user":"u${i % 1000}","action":"read","resource":"doc-${i % 5000}","headers":{"user-agent":"curl/8.5.0","x-request-id":"${(i * 2654435761) % 4294967296}"}},"result":${result},"req_id":${18446744073709551615n - BigInt(i)},"metrics":{"timer_rego_query_eval_ns":${10_000 + (i % 977)}},"timestamp":"${new Date(baseMs + i).toISOString()}"}`
}

/** Batch texts of BATCH events with ids `prefix-<n>`, `count` events in all. */
export function batches(prefix: string, count: number, baseMs: number): string[] {
  const out: string[] = []
  for (let b = 0; b < count / BATCH; b++) {
    const events = Array.from({ length: BATCH }, (_, k) =>
      event(`${prefix}-${b * BATCH + k}`, b * BATCH + k, baseMs),
    )
    out.push(`[${events.join(',')}]`)
  }
  return out
}
