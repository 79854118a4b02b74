/**
 * An agent (`regent run -s` as cli/commands/run.ts starts it) in this process on 127.0.0.1:0, with
 * policies given as text, so the server-flag tests exercise the real listeners and middleware
 * without paying for a child process each.
 */
import type { RunAppOptions } from '../../../agent/app.js'
import type { ListenAddress } from '../../../agent/listen.js'
import { type AgentServerSettings, type RunningAgent, startAgent } from '../../../agent/serve-agent.js'
import { ServerState } from '../../../agent/state.js'
import { parseModule } from '../../../core/rego/index.js'
import { ObjectValue } from '../../../core/rego/values/index.js'
import { capturedLogger } from '../../support/captured-logger.js'

export const NO_SERVER_FLAGS: AgentServerSettings = {
  authentication: 'off',
  authorizationDecision: undefined,
  tls: undefined,
  diagnosticAddrs: [],
  h2c: false,
  readyTimeoutSeconds: 0,
  graceMs: 5_000,
  waitMs: 0,
  unixSocketPerm: 0o755,
  pprof: false,
}

export const LOOPBACK: ListenAddress = { kind: 'tcp', host: '127.0.0.1', port: 0 }

export interface TestAgent extends RunningAgent {
  state: ServerState
  lines: string[]
}

/** Starts an agent over `policies` (id → Rego text). */
export async function startTestAgent(options: {
  policies?: Record<string, string>
  server?: Partial<AgentServerSettings>
  addresses?: ListenAddress[]
  app?: Partial<RunAppOptions>
  watch?: Parameters<typeof startAgent>[0]['watch']
  state?: ServerState
}): Promise<TestAgent> {
  const state =
    options.state ??
    new ServerState(
      {
        policies: Object.entries(options.policies ?? {}).map(([id, raw]) => ({
          id,
          raw,
          module: parseModule(raw, { file: id }),
        })),
        data: new ObjectValue(),
        bundles: [],
      },
      { regoVersion: 'v1' },
    )
  const { logger, lines } = capturedLogger()
  const agent = await startAgent({
    app: { state, logger, version: 'test', ...options.app },
    addresses: options.addresses ?? [LOOPBACK],
    server: { ...NO_SERVER_FLAGS, ...options.server },
    ...(options.watch ? { watch: options.watch } : {}),
  })
  return { ...agent, state, lines }
}
