/**
 * Loads the fleet the signed-in subject may read: all of it when the workspace grants
 * `status.read`, else the agents of each system the subject can list (`GET /v1/fleet?system=…`,
 * the same authorization as `GET /v1/status`).
 */
import type { ApiClient } from '../../api/client'
import { ApiError } from '../../api/client'
import type { Fleet } from '../../api/fleet'

export interface SystemName {
  id: string
  name: string
}

export interface LoadedFleet {
  fleet: Fleet
  /** When the browser received it: ages are counted from the service's `now` plus time since. */
  receivedAtMs: number
  names: Map<string, string>
}

/** Systems per request when asking system by system (keeps the query string short). */
const SYSTEMS_PER_CALL = 50

/**
 * The fleet the subject may read: the whole workspace's in one call when it may, else system by
 * system over the systems it may read (`GET /v1/systems` lists exactly those). `only`: the system
 * ids the reader named (`#/fleet?systems=a,b`) to narrow the view.
 */
export async function loadFleet(api: ApiClient, signal: AbortSignal, only?: string[]): Promise<LoadedFleet> {
  const systems = api
    .get<SystemName[]>('/v1/systems', { compact: true }, signal)
    .catch((): SystemName[] | undefined => undefined)
  let fleet: Fleet
  try {
    if (only !== undefined) throw new ApiError(403, 'named', 'systems named')
    fleet = await api.get<Fleet>('/v1/fleet', undefined, signal)
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 403)) throw err
    const listed = only ?? (await systems)?.map((s) => s.id)
    if (!listed || listed.length === 0) {
      throw new ApiError(403, err.code, `${err.message}. No system you may read lets you read its agents.`)
    }
    const parts: Fleet[] = []
    for (let i = 0; i < listed.length; i += SYSTEMS_PER_CALL) {
      const ids = listed.slice(i, i + SYSTEMS_PER_CALL)
      parts.push(...(await fleetOf(api, ids, signal)))
    }
    if (parts.length === 0)
      throw new ApiError(403, 'forbidden', 'none of these systems lets you read its agents')
    fleet = { now: parts[parts.length - 1]!.now, agents: parts.flatMap((p) => p.agents) }
  }
  const names = new Map((await systems)?.map((s) => [s.id, s.name]) ?? [])
  return { fleet, receivedAtMs: Date.now(), names }
}

/** The fleet of `ids`; when one of them is refused, each alone, leaving out the refused ones. */
async function fleetOf(api: ApiClient, ids: string[], signal: AbortSignal): Promise<Fleet[]> {
  try {
    return [await api.get<Fleet>('/v1/fleet', { system: ids.join(',') }, signal)]
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 403) || ids.length === 1) {
      if (err instanceof ApiError && err.status === 403) return []
      throw err
    }
    const each = await Promise.all(ids.map((id) => fleetOf(api, [id], signal)))
    return each.flat()
  }
}
