/**
 * What the signed-in subject may do, asked of the service (`POST /v1/authz/evaluation`, the same
 * policy that enforces every request). The console hides what is refused; the API refuses it
 * anyway if a hidden action is forced.
 */
import { useEffect, useState } from 'preact/hooks'
import type { ApiClient } from '../api/client'
import type { PermissionAnswer, PermissionCheck } from '../api/types'

/** The answers, in the order of `checks`; `undefined` while asking or when the question failed. */
export function usePermissions(api: ApiClient, checks: PermissionCheck[]): boolean[] | undefined {
  const key = JSON.stringify(checks)
  const [answers, setAnswers] = useState<boolean[] | undefined>(undefined)
  useEffect(() => {
    let live = true
    setAnswers(undefined)
    if (checks.length === 0) {
      setAnswers([])
      return
    }
    api
      .post<PermissionAnswer[]>('/v1/authz/evaluation', checks)
      .then((result) => live && setAnswers(result.map((a) => a.allowed === true)))
      .catch(() => live && setAnswers(checks.map(() => false)))
    return () => {
      live = false
    }
  }, [api, key])
  return answers
}

/** One permission: `true` only once the service said yes. */
export function useAllowed(api: ApiClient, check: PermissionCheck): boolean {
  return usePermissions(api, [check])?.[0] === true
}
