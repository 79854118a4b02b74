/** The Decisions view: the search (`#/decisions`) or one decision (`#/decisions/<id>`). */
import type { ViewProps } from '../index'
import { DecisionDetail } from './decision-detail'
import { DecisionList } from './decision-list'
import './decisions.css'

export function DecisionsView({ api, rest, params }: ViewProps) {
  const [id] = rest
  if (id !== undefined) return <DecisionDetail api={api} id={id} system={params.get('system') ?? undefined} />
  return <DecisionList api={api} params={params} />
}
