/**
 * Compile-time checks that the console's hand-written API shapes match the service's own
 * (STYLE.md: a renamed field fails the build, not the browser). `npx tsc --noEmit -p .` reads
 * this file; nothing runs it.
 */
import type {
  Fleet as ConsoleFleet,
  FleetAgent as ConsoleFleetAgent,
} from '../../../console/src/api/fleet.js'
import type { FleetAgent as ServiceFleetAgent } from '../../../service/fleet.js'

/** `true` when A and B are assignable both ways, else `false`. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false

export const fleetAgentShape: Same<ConsoleFleetAgent, ServiceFleetAgent> = true
export const fleetShape: Same<ConsoleFleet, { now: string; agents: ServiceFleetAgent[] }> = true
