/** Shared setup for relay tests: a relay on 127.0.0.1:0 over a temp folder, silent logs. */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pino from 'pino'
import { parseConfig } from '../../core/config.js'
import { type RelayConfig, relayConfigSchema } from '../../relay/config.js'
import { type RunningRelay, type StartRelayOptions, startRelay } from '../../relay/relay.js'

export const silentLogger = pino({ level: 'silent' })

/** Parses a relay config from YAML (no environment). */
export function relayConfig(yaml: string): RelayConfig {
  return parseConfig(yaml, relayConfigSchema, { env: {} })
}

/** A temp folder removed by the returned cleanup. */
export async function tempDir(
  prefix = 'regent-relay-',
): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix))
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) }
}

/** Starts a relay on a free loopback port. */
export function startTestRelay(
  config: RelayConfig,
  dataDir: string,
  extra: Partial<StartRelayOptions> = {},
): Promise<RunningRelay> {
  return startRelay({ config, logger: silentLogger, addr: '127.0.0.1:0', dataDir, version: 'test', ...extra })
}

/** Polls `check` every 20 ms until it returns true; throws after `timeoutMs`. */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 5000,
  what = 'condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await check()) return
    await new Promise((r) => setTimeout(r, 20))
  }
  throw new Error(`timed out waiting for ${what}`)
}

/** The value of a metric sample in Prometheus text, matched by name and label substring. */
export function metricValue(text: string, name: string, labels = ''): number {
  const line = text
    .split('\n')
    .find((l) => (l.startsWith(`${name}{`) || l.startsWith(`${name} `) ? l.includes(labels) : false))
  return line ? Number(line.split(' ').at(-1)) : 0
}
