/**
 * BackgroundLoop: steps never overlap, each step's answer is the delay before the next, `wake`
 * runs the next step at once (or right after the step in progress), and nothing runs after stop.
 */
import { describe, expect, it, vi } from 'vitest'
import { BackgroundLoop } from '../../core/background-loop.js'

describe('BackgroundLoop', () => {
  it('wakes a waiting loop at once, and a running one right after its step', async () => {
    let steps = 0
    let release: (() => void) | undefined
    let holdNext = false
    const loop = new BackgroundLoop(async () => {
      steps++
      if (holdNext) await new Promise<void>((resolve) => (release = resolve))
      return 60_000 // a minute: only wake can bring the next step sooner in this test
    })
    loop.start()
    await vi.waitFor(() => expect(steps).toBe(1), { timeout: 2000, interval: 5 })
    loop.wake()
    await vi.waitFor(() => expect(steps).toBe(2), { timeout: 2000, interval: 5 })

    holdNext = true
    loop.wake()
    await vi.waitFor(() => expect(release).toBeDefined(), { timeout: 2000, interval: 5 })
    expect(steps).toBe(3)
    holdNext = false
    loop.wake() // during the step: remembered, not a second step at once
    await new Promise((resolve) => setTimeout(resolve, 30))
    expect(steps).toBe(3)
    release!()
    await vi.waitFor(() => expect(steps).toBe(4), { timeout: 2000, interval: 5 })

    await loop.stop()
    loop.wake()
    await new Promise((resolve) => setTimeout(resolve, 30))
    expect(steps).toBe(4)
  })

  it('does nothing when woken before it was started', async () => {
    let steps = 0
    const loop = new BackgroundLoop(async () => {
      steps++
      return 60_000
    })
    loop.wake()
    await new Promise((resolve) => setTimeout(resolve, 30))
    expect(steps).toBe(0)
    loop.start()
    await vi.waitFor(() => expect(steps).toBe(1), { timeout: 2000, interval: 5 })
    await loop.stop()
  })
})
