/**
 * REGENT_DATA_DIR and REGENT_LISTEN_HOST change the defaults of every server (the image sets them),
 * and only the defaults: a config key or a flag still wins.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { serviceCommand } from '../../cli/commands/service.js'
import { defaultDataDir, defaultListenAddr } from '../../core/runtime-defaults.js'
import { relaySectionSchema } from '../../relay/index.js'

const saved = { dir: process.env.REGENT_DATA_DIR, host: process.env.REGENT_LISTEN_HOST }
afterEach(() => {
  for (const [name, value] of [
    ['REGENT_DATA_DIR', saved.dir],
    ['REGENT_LISTEN_HOST', saved.host],
  ] as const) {
    if (value === undefined) delete process.env[name]
    else process.env[name] = value
  }
})

describe('runtime defaults', () => {
  it('default to ./.regent/<part> and loopback', () => {
    expect(defaultDataDir('service', {})).toBe('./.regent/service')
    expect(defaultListenAddr(8282, {})).toBe('127.0.0.1:8282')
    expect(defaultListenAddr(8181, {}, 'localhost')).toBe('localhost:8181')
  })

  it('follow REGENT_DATA_DIR and REGENT_LISTEN_HOST', () => {
    const env = { REGENT_DATA_DIR: '/var/lib/regent/', REGENT_LISTEN_HOST: '0.0.0.0' }
    expect(defaultDataDir('relay', env)).toBe('/var/lib/regent/relay')
    expect(defaultListenAddr(8181, env, 'localhost')).toBe('0.0.0.0:8181')
    expect(defaultListenAddr(8282, { REGENT_LISTEN_HOST: '::' })).toBe('[::]:8282')
  })

  it('are what the relay config and the service command default to, read when used', () => {
    process.env.REGENT_DATA_DIR = '/var/lib/regent'
    process.env.REGENT_LISTEN_HOST = '0.0.0.0'
    const relay = relaySectionSchema.parse({})
    expect(relay.addr).toBe('0.0.0.0:8282')
    expect(relay.storage.dir).toBe('/var/lib/regent/relay')
    const service = serviceCommand()
    expect(service.getOptionValue('addr')).toBe('0.0.0.0:8181')
    expect(service.getOptionValue('dataDir')).toBe('/var/lib/regent/service')
  })

  it('never override what the config file says', () => {
    process.env.REGENT_DATA_DIR = '/var/lib/regent'
    process.env.REGENT_LISTEN_HOST = '0.0.0.0'
    const relay = relaySectionSchema.parse({ addr: '127.0.0.1:8282', storage: { dir: '/data' } })
    expect(relay.addr).toBe('127.0.0.1:8282')
    expect(relay.storage.dir).toBe('/data')
  })
})
