/**
 * The console's views, in the order of the navigation. Each view renders from the location's
 * segments after its own id (`#/systems/<id>` → `Systems` with `['<id>']`).
 */
import type { JSX } from 'preact'
import type { ApiClient } from '../api/client'
import type { Location } from '../router'
import { AccessView } from './access'
import { ActivityView } from './activity/activity-view'
import { DatasourcesView } from './datasources'
import { DecisionsView } from './decisions/decisions-view'
import { FleetView } from './fleet/fleet-view'
import { PlaygroundView } from './playground/playground-view'
import { SystemsView } from './systems'

export interface ViewProps {
  api: ApiClient
  /** Segments after the view's id. */
  rest: string[]
  params: URLSearchParams
}

export interface ConsoleView {
  id: string
  title: string
  render: (props: ViewProps) => JSX.Element
}

export const VIEWS: ConsoleView[] = [
  { id: 'fleet', title: 'Fleet', render: (p) => <FleetView {...p} /> },
  { id: 'systems', title: 'Systems', render: (p) => <SystemsView {...p} /> },
  { id: 'decisions', title: 'Decisions', render: (p) => <DecisionsView {...p} /> },
  { id: 'datasources', title: 'Datasources', render: (p) => <DatasourcesView {...p} /> },
  { id: 'activity', title: 'Activity', render: (p) => <ActivityView {...p} /> },
  { id: 'access', title: 'Access', render: (p) => <AccessView {...p} /> },
  { id: 'playground', title: 'Compile playground', render: (p) => <PlaygroundView {...p} /> },
]

/** The view a location names, or the first one. */
export function viewFor(loc: Location): { view: ConsoleView; rest: string[] } {
  const [id, ...rest] = loc.segments
  const view = VIEWS.find((v) => v.id === id)
  return view ? { view, rest } : { view: VIEWS[0]!, rest: [] }
}
