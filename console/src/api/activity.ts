/** `GET /v2/activity` (docs/activity.md): the audit log's records and its page cursor. */

export interface ActivityRecord {
  request: {
    id: string
    method: string
    path: string
    timestamp: string
    class: 'audit' | 'activity'
    requested_by: string
    requested_through: string
    request_body?: unknown
    errors?: { evaluation?: string }
  }
  response?: { timestamp?: string; status_code: number; errors?: { processing?: string } }
  duration?: number
  decision?: {
    output?: {
      allow?: boolean
      grant?: { id?: string; role?: string; resource?: string }
      status?: { reason?: string }
    }
  }
}

export interface ActivityPage {
  request_id: string
  results: ActivityRecord[]
  cursor?: string
  partial?: boolean
}

/** The filters of `GET /v2/activity` the view offers. */
export interface ActivityFilters {
  class?: 'audit' | 'activity'
  outcome?: 'allowed' | 'denied' | 'error'
  query?: string
  start_time?: string
  end_time?: string
}
