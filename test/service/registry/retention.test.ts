import { describe, expect, it } from 'vitest'
import { versionsToPrune } from '../../../service/registry/retention.js'

const v = (version: number, deploy_seq: number | null = null) => ({ version, deploy_seq })

describe('versionsToPrune', () => {
  it('keeps the newest max_bundles versions', () => {
    const rows = [v(5, 3), v(4, 2), v(3, 1), v(2), v(1)]
    expect(versionsToPrune(rows, 5, { max_bundles: 3, max_deployed_bundles: 3 })).toEqual([2, 1])
  })

  it('always keeps the active version, even an old one after a rollback', () => {
    const rows = [v(5, 1), v(4), v(3), v(2), v(1, 2)]
    expect(versionsToPrune(rows, 1, { max_bundles: 2, max_deployed_bundles: 2 })).toEqual([4, 3, 2])
  })

  it('keeps at most max_deployed_bundles once-deployed versions, so newer builds are not crowded out', () => {
    const rows = [v(6, 4), v(5), v(4, 3), v(3, 2), v(2), v(1, 1)]
    expect(versionsToPrune(rows, 6, { max_bundles: 5, max_deployed_bundles: 2 })).toEqual([3, 1])
  })

  it('drops nothing within the limits and handles no active version (manual deployment, nothing deployed)', () => {
    expect(versionsToPrune([v(2), v(1)], undefined, { max_bundles: 2, max_deployed_bundles: 1 })).toEqual([])
    expect(
      versionsToPrune([v(3), v(2), v(1)], undefined, { max_bundles: 2, max_deployed_bundles: 1 }),
    ).toEqual([1])
  })
})
