/** How a discovered configuration is merged under the boot configuration (agent/plugins/discovery.ts). */
import { describe, expect, it } from 'vitest'
import { agentConfigSchema } from '../../agent/config/schema.js'
import { mergeUnderBoot } from '../../agent/plugins/discovery.js'

describe('mergeUnderBoot', () => {
  const boot = agentConfigSchema.parse({
    services: { relay: { url: 'http://relay/v1' } },
    labels: { 'system-id': 's1' },
    bundles: { pinned: { service: 'relay', resource: 'bundles/pinned' } },
    keys: { k: { key: 'secret', algorithm: 'HS256' } },
    discovery: { name: 'discovery', service: 'relay' },
  })

  it('keeps the boot entries, adds the discovered ones, and takes discovered sections the boot lacks', () => {
    const merged = mergeUnderBoot(boot, {
      services: [{ name: 'other', url: 'http://other/v1' }],
      labels: { 'system-id': 'evil', team: 'a' },
      bundles: {
        pinned: { service: 'other', resource: 'elsewhere' },
        'systems/s1': { service: 'relay', resource: '/bundles/systems/s1' },
      },
      keys: { k: { key: 'other', algorithm: 'HS256' }, k2: { key: 'x', algorithm: 'HS256' } },
      decision_logs: { service: 'relay' },
      status: { service: 'relay' },
      discovery: { name: 'hijacked' },
      default_decision: '/main/main',
    })
    const config = agentConfigSchema.parse(merged)
    expect(Object.keys(config.services).sort()).toEqual(['other', 'relay'])
    expect(config.services.relay?.url).toBe('http://relay/v1')
    expect(config.labels).toEqual({ 'system-id': 's1', team: 'a' })
    expect(config.bundles.pinned?.resource).toBe('bundles/pinned')
    expect(config.bundles['systems/s1']?.resource).toBe('/bundles/systems/s1')
    expect(config.keys.k?.key).toBe('secret')
    expect(config.keys.k2?.key).toBe('x')
    expect(config.decision_logs?.service).toBe('relay')
    expect(config.status?.service).toBe('relay')
    expect(config.discovery?.name).toBe('discovery')
    expect(config.default_decision).toBe('/main/main')
  })
})
