/**
 * Prometheus series of the compile workers, computed when scraped from the pool's counters (the
 * same figures `/v1/relay/status` shows under `compile.workers`).
 */
import { Counter, Gauge, type Registry } from 'prom-client'
import type { TaskPoolStats } from '../../core/workers/task-pool.js'

/** Registers the compile pool's series on the relay's registry. */
export function registerCompileMetrics(registry: Registry, stats: () => TaskPoolStats): void {
  const registers = [registry]
  const gauge = (name: string, help: string, read: (s: TaskPoolStats) => number) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        this.set(read(stats()))
      },
    })
  const counter = (name: string, help: string, read: (s: TaskPoolStats) => number) =>
    new Counter({
      name,
      help,
      registers,
      collect() {
        this.reset()
        this.inc(read(stats()))
      },
    })
  gauge(
    'regent_relay_compile_workers',
    'Compile worker threads running (0 until the first request).',
    (s) => s.workers,
  )
  gauge('regent_relay_compile_workers_busy', 'Compile workers running a request.', (s) => s.busy)
  gauge('regent_relay_compile_queued', 'Compile requests waiting for a worker.', (s) => s.queued)
  counter(
    'regent_relay_compile_refused_total',
    'Compile requests refused with 503 (queue full).',
    (s) => s.refused,
  )
  counter(
    'regent_relay_compile_timeouts_total',
    'Compile requests past their deadline while waiting or with their worker stopped.',
    (s) => s.timedOut,
  )
  counter(
    'regent_relay_compile_workers_replaced_total',
    'Compile workers replaced (out of memory, stopped past a deadline, or died).',
    (s) => s.replaced,
  )
}
