/**
 * Compile endpoint figures, everything after partial evaluation (which is measured once the
 * evaluator's PE lands): the tickets example's residual checked, translated and rendered in process
 * (UCAST and PostgreSQL), and over HTTP through the real routes beside a bare Hono route answering a
 * fixed JSON body in the same run; then how translation cost grows with the number of residual
 * queries (10, 100, 1,000).
 */
import { Hono } from 'hono'
import { Agent, request } from 'undici'
import { CompileService } from '../../compile/compile.js'
import { checkFragments } from '../../compile/fragments/check.js'
import { ConstraintSet } from '../../compile/fragments/constraints.js'
import { compileRoutes } from '../../compile/route.js'
import { renderSql } from '../../compile/sql/index.js'
import type { CompileBackend } from '../../compile/types.js'
import { queriesToUcast } from '../../compile/ucast.js'
import { readBody, startServer } from '../../core/http/index.js'
import { createLogger } from '../../core/log.js'
import { residual } from '../compile/residual.js'

// The residual partial evaluation gives for the details' tickets example (tenant 2, user caesar).
const TICKETS = residual(
  'input.tickets.tenant == 2; input.users.name == "caesar"',
  'input.tickets.tenant == 2; input.tickets.assignee == null; input.tickets.resolved == false',
)

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0
}

async function timeLoop(label: string, iterations: number, fn: () => unknown): Promise<void> {
  const samples: number[] = []
  const started = performance.now()
  for (let i = 0; i < iterations; i++) {
    const t = performance.now()
    await fn()
    samples.push(performance.now() - t)
  }
  const total = performance.now() - started
  samples.sort((a, b) => a - b)
  console.log(
    `   ${label.padEnd(44)} ${Math.round((iterations / total) * 1000)
      .toString()
      .padStart(
        8,
      )} ops/s  p50 ${(percentile(samples, 0.5) * 1000).toFixed(1)} µs  p99 ${(percentile(samples, 0.99) * 1000).toFixed(1)} µs`,
  )
}

const backend: CompileBackend = {
  modules: () => [],
  partialEvaluate: () => ({ queries: TICKETS, support: [] }),
  evaluate: () => undefined,
  toAstJson: () => ({}),
}

async function httpLoop(
  label: string,
  url: string,
  headers: Record<string, string>,
  body: string,
): Promise<void> {
  const agent = new Agent({ connections: 8 })
  const requests = 4000
  const concurrency = 8
  const samples: number[] = []
  const deadline = performance.now() + 20_000
  let next = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < requests && performance.now() < deadline) {
        next++
        const t = performance.now()
        const res = await request(url, { method: 'POST', headers, body, dispatcher: agent })
        await res.body.text()
        if (res.statusCode !== 200) throw new Error(`${label}: HTTP ${res.statusCode}`)
        samples.push(performance.now() - t)
      }
    }),
  )
  const total = performance.now() - started
  await agent.close()
  samples.sort((a, b) => a - b)
  console.log(
    `   ${label.padEnd(44)} ${Math.round((samples.length / total) * 1000)
      .toString()
      .padStart(
        8,
      )} req/s  p50 ${percentile(samples, 0.5).toFixed(2)} ms  p99 ${percentile(samples, 0.99).toFixed(2)} ms`,
  )
}

/** Prints the figures. */
export async function run(): Promise<void> {
  const pg = { kind: 'sql', dialect: 'postgresql', variant: 'postgresql' } as const
  const prisma = { kind: 'ucast', variant: 'prisma' } as const
  const ctx = { constraints: new ConstraintSet([pg]), shortNames: new Set<string>(), support: [] }
  console.log('in process (after partial evaluation), tickets example:')
  await timeLoop('check + UCAST (prisma)', 20_000, () => {
    checkFragments(TICKETS, { ...ctx, constraints: new ConstraintSet([prisma]) })
    queriesToUcast(TICKETS, undefined)
  })
  await timeLoop('check + UCAST + SQL (postgresql)', 20_000, () => {
    checkFragments(TICKETS, ctx)
    const d = queriesToUcast(TICKETS, undefined)
    renderSql(d.kind === 'condition' ? d.node : undefined, 'postgresql')
  })
  const service = new CompileService(backend)
  const bodyText =
    '{"input": {"user": "caesar", "tenant": {"id": 2}}, "unknowns": ["input.tickets", "input.users"]}'
  await timeLoop('whole pipeline (decode … response), postgresql', 10_000, () =>
    service.compile({
      path: 'filters/include',
      accept: 'application/vnd.opa.sql.postgresql+json',
      contentType: 'application/json',
      bodyText,
      metrics: false,
    }),
  )

  console.log('growth with the number of residual queries (check + UCAST + SQL):')
  for (const n of [10, 100, 1000]) {
    const queries = residual(
      ...Array.from({ length: n }, (_, i) => `input.t.a == ${i}; input.t.b != "x${i}"`),
    )
    await timeLoop(`${n} queries`, Math.max(20, Math.floor(20_000 / n)), () => {
      checkFragments(queries, ctx)
      const d = queriesToUcast(queries, undefined)
      renderSql(d.kind === 'condition' ? d.node : undefined, 'postgresql')
    })
  }

  console.log('over HTTP on 127.0.0.1 (8 connections, 4,000 requests):')
  const logger = createLogger({ level: 'warn' })
  const bare = new Hono()
  bare.post('/fixed', (c) => c.json({ result: { query: "WHERE tickets.tenant = E'2'" } }))
  bare.post('/read', async (c) => {
    await readBody(c)
    return c.json({ result: { query: "WHERE tickets.tenant = E'2'" } })
  })
  const compileServer = await startServer({
    fetch: compileRoutes({ backend }).app.fetch,
    host: '127.0.0.1',
    port: 0,
    logger,
    name: 'bench-compile',
  })
  const bareServer = await startServer({
    fetch: bare.fetch,
    host: '127.0.0.1',
    port: 0,
    logger,
    name: 'bench-bare',
  })
  try {
    await httpLoop('bare Hono route, fixed JSON (baseline)', `${bareServer.url}/fixed`, {}, '{}')
    await httpLoop('bare route reading the body (readBody)', `${bareServer.url}/read`, {}, bodyText)
    for (const [label, accept] of [
      ['compile, postgresql', 'application/vnd.opa.sql.postgresql+json'],
      ['compile, ucast prisma', 'application/vnd.opa.ucast.prisma+json'],
    ]) {
      await httpLoop(
        label!,
        `${compileServer.url}/v1/compile/filters/include`,
        { Accept: accept!, 'Content-Type': 'application/json' },
        bodyText,
      )
    }
  } finally {
    await compileServer.stop()
    await bareServer.stop()
  }
}
