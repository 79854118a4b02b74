/**
 * Host-key checking of ssh origins: configured lines for the host win, else the key recorded in
 * the store when the host was first met (real store, each backend), else trust on first use
 * recording the key (the first recorder wins, as replicas racing would).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  configuredLinesFor,
  hostKeyVerification,
  knownHostsKey,
} from '../../../service/git-origin/host-keys.js'
import type { ServiceStore } from '../../../store/service/index.js'
import { BACKENDS, openTestStore } from '../../store/backends.js'

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

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`hostKeyVerification on ${backend.name}`, () => {
    let store: ServiceStore
    let close: () => Promise<void>
    beforeAll(async () => {
      ;({ store, close } = await openTestStore(backend))
    })
    afterAll(async () => close?.())

    it('trusts a new host once, records its key, and pins it from then on', async () => {
      const first = await hostKeyVerification(store, [], 'git.example', 2222)
      expect(first.knownHosts).toBeUndefined()
      await first.trustOnFirstUse!('[git.example]:2222 ssh-ed25519 AAAAfirst\n')
      // A second replica that also met the host first does not replace the recorded key.
      await first.trustOnFirstUse!('[git.example]:2222 ssh-ed25519 AAAAsecond\n')
      expect(await store.settings.get(knownHostsKey('git.example', 2222))).toBe(
        '[git.example]:2222 ssh-ed25519 AAAAfirst\n',
      )
      const later = await hostKeyVerification(store, [], 'git.example', 2222)
      expect(later).toEqual({ knownHosts: '[git.example]:2222 ssh-ed25519 AAAAfirst\n' })
    })

    it('checks configured lines for the host only, ahead of a recorded key', async () => {
      const configured = ['[git.example]:2222 ssh-ed25519 AAAAconfigured', 'other ssh-ed25519 AAAAother']
      expect(await hostKeyVerification(store, configured, 'git.example', 2222)).toEqual({
        knownHosts: '[git.example]:2222 ssh-ed25519 AAAAconfigured\n',
      })
    })
  })
}
