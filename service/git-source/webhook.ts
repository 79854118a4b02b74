/**
 * Push-event webhooks from GitHub and GitLab, checked against the shared secret
 * (`service.git.webhook_secret`): GitHub signs the raw body (`X-Hub-Signature-256: sha256=<hex
 * HMAC-SHA256>`), GitLab sends the secret itself (`X-Gitlab-Token`). Both compared in constant time.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'

export type WebhookCheck =
  | { ok: true; provider: 'github' | 'gitlab'; push: boolean; event: string }
  | { ok: false; reason: string }

function equalBytes(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b)
}

/** Checks a webhook request: its headers (lower-case names) and raw body. */
export function checkWebhook(
  secret: string,
  headers: (name: string) => string | undefined,
  body: Uint8Array,
): WebhookCheck {
  const signature = headers('x-hub-signature-256')
  if (signature !== undefined) {
    const match = /^sha256=([0-9a-f]{64})$/i.exec(signature.trim())
    if (!match) return { ok: false, reason: 'X-Hub-Signature-256: expected sha256=<64 hex digits>' }
    const expected = createHmac('sha256', secret).update(body).digest()
    if (!equalBytes(Buffer.from(match[1]!, 'hex'), expected))
      return {
        ok: false,
        reason: 'X-Hub-Signature-256: the signature does not match the body and the shared secret',
      }
    const event = headers('x-github-event') ?? ''
    return { ok: true, provider: 'github', event, push: event === 'push' }
  }
  const token = headers('x-gitlab-token')
  if (token !== undefined) {
    if (!equalBytes(Buffer.from(token), Buffer.from(secret)))
      return { ok: false, reason: 'X-Gitlab-Token: does not match the shared secret' }
    const event = headers('x-gitlab-event') ?? ''
    return { ok: true, provider: 'gitlab', event, push: event === 'Push Hook' || event === 'Tag Push Hook' }
  }
  return { ok: false, reason: 'missing X-Hub-Signature-256 (GitHub) or X-Gitlab-Token (GitLab) header' }
}
