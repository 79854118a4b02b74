/** Datasources as `GET /v1/datasources` answers them (docs/datasources.md). */
export interface DatasourceStatus {
  code: 'ok' | 'error' | 'running' | 'pending' | string
  message?: string
  last_attempt?: string
  last_success?: string
  /** Milliseconds the last run took. */
  duration?: number
  size?: number
  items?: number
}

export interface Datasource {
  id: string
  category: string
  description?: string
  enabled?: boolean
  polling_interval?: string
  executed?: string
  status?: DatasourceStatus
  [field: string]: unknown
}

/** Failing first, then running, then the rest; by id within each. */
export function datasourceOrder(a: Datasource, b: Datasource): number {
  const rank = (d: Datasource) => (d.status?.code === 'error' ? 0 : d.status?.code === 'running' ? 1 : 2)
  return rank(a) - rank(b) || a.id.localeCompare(b.id)
}
