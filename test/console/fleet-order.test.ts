/** The Fleet view's ordering and health, without a browser (console/src/views/fleet/fleet-order.ts). */
import { describe, expect, it } from 'vitest'
import type { FleetAgent } from '../../console/src/api/fleet.js'
import { groupFleet, onlyFlagged, parseThreshold } from '../../console/src/views/fleet/fleet-order.js'

const NOW = Date.parse('2026-11-27T12:00:00Z')

function agent(id: string, over: Partial<FleetAgent> & { ageS?: number } = {}): FleetAgent {
  const { ageS = 10, ...rest } = over
  return {
    system_id: 's1',
    agent_id: id,
    kind: 'agent',
    received_at: new Date(NOW - ageS * 1000).toISOString(),
    version: null,
    labels: {},
    bundles: [],
    plugins: { bundle: { state: 'OK' } },
    errors: [],
    via_relay: null,
    ...rest,
  }
}

describe('fleet order', () => {
  it('puts stale, then erroring, then not-ready agents first, and systems by their worst agent', () => {
    const groups = groupFleet(
      [
        agent('ok'),
        agent('starting', { plugins: { bundle: { state: 'NOT_READY' } } }),
        agent('failing', { errors: ['bundle x: boom'] }),
        agent('gone', { ageS: 600 }),
        agent('other-ok', { system_id: 's0' }),
        agent('other-failing', { system_id: 's2', errors: ['e'] }),
      ],
      NOW,
      300_000,
    )
    expect(groups.map((g) => g.systemId)).toEqual(['s1', 's2', 's0'])
    expect(groups[0]!.rows.map((r) => r.agent.agent_id)).toEqual(['gone', 'failing', 'starting', 'ok'])
    expect(groups[0]).toMatchObject({ stale: 1, erroring: 1 })
    expect(groups[0]!.rows.map((r) => [r.stale, r.erroring, r.notReady])).toEqual([
      [true, false, false],
      [false, true, false],
      [false, false, true],
      [false, false, false],
    ])
  })

  it('is exactly at the threshold still fresh, one millisecond past it stale; an unreadable time is stale', () => {
    const [g] = groupFleet(
      [
        agent('edge', { ageS: 300 }),
        agent('past', { received_at: new Date(NOW - 300_001).toISOString() }),
        agent('bad', { received_at: 'yesterday' }),
      ],
      NOW,
      300_000,
    )
    const stale = Object.fromEntries(g!.rows.map((r) => [r.agent.agent_id, r.stale]))
    expect(stale).toEqual({ edge: false, past: true, bad: true })
  })

  it('follows each relay with the agents behind it, and ranks a relay as its worst agent', () => {
    const [g] = groupFleet(
      [
        agent('direct-failing', { errors: ['x'] }),
        agent('relay-1', { kind: 'relay', relay_agents: ['a', 'b'] }),
        agent('a', { via_relay: 'relay-1' }),
        agent('b', { via_relay: 'relay-1', ageS: 900 }),
        agent('orphan', { via_relay: 'relay-gone' }),
      ],
      NOW,
      300_000,
    )
    expect(g!.rows.map((r) => [r.agent.agent_id, r.behindRelay])).toEqual([
      ['relay-1', false],
      ['b', true],
      ['a', true],
      ['direct-failing', false],
      ['orphan', false],
    ])
  })

  it('keeps only stale or erroring agents, dropping systems left empty', () => {
    const groups = onlyFlagged(
      groupFleet(
        [agent('ok'), agent('gone', { ageS: 900 }), agent('fine', { system_id: 's2' })],
        NOW,
        300_000,
      ),
    )
    expect(groups.map((g) => [g.systemId, g.rows.map((r) => r.agent.agent_id)])).toEqual([['s1', ['gone']]])
  })

  it('reads thresholds in seconds, minutes or hours, and refuses anything else', () => {
    expect([
      parseThreshold('90'),
      parseThreshold('5m'),
      parseThreshold(' 2H '),
      parseThreshold(null),
    ]).toEqual([90, 300, 7200, undefined])
    expect([parseThreshold('0'), parseThreshold('-5'), parseThreshold('5d'), parseThreshold('1e9')]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ])
  })
})
