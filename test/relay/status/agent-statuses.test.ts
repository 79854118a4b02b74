import { describe, expect, it } from 'vitest'
import { AgentStatuses } from '../../../plugins/status/agent-statuses.js'

describe('AgentStatuses', () => {
  it('keeps only the latest report per agent and forgets the oldest agent past the cap', () => {
    const agents = new AgentStatuses(2, 60_000)
    agents.record('a', { seq: 1 }, undefined)
    agents.record('b', { seq: 1 }, 'p')
    agents.record('a', { seq: 2 }, undefined)
    expect(agents.all().map((s) => [s.agentId, s.body.seq])).toEqual([
      ['b', 1],
      ['a', 2],
    ])
    agents.record('c', { seq: 1 }, undefined)
    expect(agents.all().map((s) => s.agentId)).toEqual(['a', 'c'])
  })

  it('marks a report forwarded only if no newer one replaced it meanwhile', () => {
    const agents = new AgentStatuses(10, 60_000)
    agents.record('a', { seq: 1 }, undefined)
    const [first] = agents.pending()
    agents.record('a', { seq: 2 }, undefined)
    agents.markForwarded(first!)
    expect(agents.pending().map((s) => s.body.seq)).toEqual([2])
    agents.markForwarded(agents.pending()[0]!)
    expect(agents.pending()).toEqual([])
  })

  it('forgets agents silent longer than the TTL', () => {
    const agents = new AgentStatuses(10, 1000)
    agents.record('old', {}, undefined, new Date(0))
    agents.record('new', {}, undefined, new Date(5000))
    agents.expire(new Date(5500))
    expect(agents.all().map((s) => s.agentId)).toEqual(['new'])
  })
})
