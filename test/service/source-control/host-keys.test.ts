import { describe, expect, it } from 'vitest'
import { configuredLinesFor } from '../../../service/source-control/host-keys.js'

describe('configuredLinesFor', () => {
  const lines = [
    'github.com ssh-ed25519 AAAAgithub',
    'gitlab.com,[gitlab.com]:2222 ssh-ed25519 AAAAgitlab',
    '[git.internal]:2222 ssh-ed25519 AAAAinternal',
    'notgithub.com ssh-ed25519 AAAAother',
  ]

  it('picks the lines naming the host, on port 22 by name and off it as [host]:port', () => {
    expect(configuredLinesFor(lines, 'github.com', 22)).toEqual(['github.com ssh-ed25519 AAAAgithub'])
    expect(configuredLinesFor(lines, 'gitlab.com', 2222)).toEqual([lines[1]])
    expect(configuredLinesFor(lines, 'git.internal', 2222)).toEqual([lines[2]])
  })

  it('does not match another port, a suffix of another name, or an unnamed host', () => {
    expect(configuredLinesFor(lines, 'git.internal', 22)).toEqual([])
    expect(configuredLinesFor(lines, 'github.com', 2222)).toEqual([])
    expect(configuredLinesFor(lines, 'hub.com', 22)).toEqual([])
    expect(configuredLinesFor([], 'github.com', 22)).toEqual([])
  })
})
