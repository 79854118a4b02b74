/**
 * `regent bench --e2e`: the query benchmarked over HTTP, as `opa bench --e2e` does it. A
 * `regent run -s` server is started in this process on 127.0.0.1 (an ephemeral port) with the
 * policies and data of `-d` and `-b`; each operation is one request over a kept-alive connection:
 * `POST /v1/data/<path>` with `{"input": …}` for a data ref query (`data.a.b`), `POST /v1/query`
 * for any other query, `POST /v1/compile` with `--partial`. The server stops after the runs,
 * waiting `--shutdown-wait-period` seconds first and at most `--shutdown-grace-period` for requests.
 */
import type { Logger } from 'pino'
import { Agent, request } from 'undici'
import { createRunApp } from '../../agent/app.js'
import { stateCompileBackend } from '../../agent/compile-backend.js'
import { loadInitialState } from '../../agent/load.js'
import { ServerState } from '../../agent/state.js'
import { type RunningServer, startServer } from '../../core/http/index.js'
import { createLogger } from '../../core/log.js'
import { fromJS, toJSONText, type Value } from '../../core/rego/values/index.js'
import type { Operation } from './measure.js'

/** What the e2e server loads and how it stops. */
export interface E2eSettings {
  data: string[]
  bundles: string[]
  ignore: string[]
  regoVersion: 'v0' | 'v1'
  /** Seconds to wait before stopping (`--shutdown-wait-period`). */
  shutdownWaitSeconds: number
  /** Seconds in-flight requests get when stopping (`--shutdown-grace-period`). */
  shutdownGraceSeconds: number
}

/** The request one operation sends. */
export interface E2eQuery {
  query: string
  input: Value | undefined
  partial: boolean
  unknowns: string[]
  /** Exit non-zero on an undefined or empty result (`--fail`). */
  fail: boolean
}

/** A started e2e server and the operation that queries it. */
export interface E2eBench {
  op: Operation
  url: string
  stop(): Promise<void>
}

const DATA_REF = /^data(\.[A-Za-z_][A-Za-z0-9_]*)*$/

/** Starts the server and prepares the operation; `stop()` must be called. */
export async function startE2eBench(settings: E2eSettings, query: E2eQuery): Promise<E2eBench> {
  const loaded = await loadInitialState({
    paths: settings.data,
    bundles: settings.bundles,
    ignore: settings.ignore,
    regoVersion: settings.regoVersion,
  })
  const state = new ServerState(loaded, { regoVersion: settings.regoVersion })
  // Silent: one request log line per iteration would time the terminal, not the server.
  const logger: Logger = createLogger({ level: 'silent' })
  const runtime = fromJS({ version: 'bench' })
  const app = createRunApp({
    state,
    logger,
    version: 'bench',
    runtime,
    compileBackend: stateCompileBackend(state, runtime, {}),
  })
  const server: RunningServer = await startServer({
    name: 'bench',
    host: '127.0.0.1',
    port: 0,
    fetch: app.fetch,
    logger,
    graceMs: settings.shutdownGraceSeconds * 1000,
  })
  const dispatcher = new Agent({ connections: 1, pipelining: 1 })
  const { path, body } = requestFor(query)
  const url = `${server.url}${path}`
  const op: Operation = async () => {
    const res = await request(url, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json' },
      dispatcher,
    })
    const text = await res.body.text()
    if (res.statusCode !== 200) throw new Error(`server answered ${res.statusCode}: ${text}`)
    if (query.fail && isUndefined(text, query.partial)) throw new Error('undefined result')
  }
  return {
    op,
    url: server.url,
    stop: async () => {
      if (settings.shutdownWaitSeconds > 0) {
        await new Promise((resolve) => setTimeout(resolve, settings.shutdownWaitSeconds * 1000))
      }
      await dispatcher.close()
      await server.stop()
    },
  }
}

function requestFor(query: E2eQuery): { path: string; body: string } {
  const input = query.input === undefined ? '' : `,"input":${toJSONText(query.input)}`
  if (query.partial) {
    return {
      path: '/v1/compile',
      body: `{"query":${JSON.stringify(query.query)},"unknowns":${JSON.stringify(query.unknowns)}${input}}`,
    }
  }
  const trimmed = query.query.trim()
  if (DATA_REF.test(trimmed)) {
    const path = trimmed.split('.').slice(1).join('/')
    return { path: `/v1/data/${path}`, body: `{${input.slice(1)}}` }
  }
  return { path: '/v1/query', body: `{"query":${JSON.stringify(trimmed)}${input}}` }
}

/** Whether an answer holds no result: `{}` for data, an empty result set for query and compile. */
function isUndefined(text: string, partial: boolean): boolean {
  const answer = JSON.parse(text) as { result?: unknown }
  if (answer.result === undefined) return true
  if (Array.isArray(answer.result)) return answer.result.length === 0
  if (partial) {
    const queries = (answer.result as { queries?: unknown[] }).queries
    return !Array.isArray(queries) || queries.length === 0
  }
  return false
}
