/** git's failure messages (as git 2.39 and OpenSSH print them) map to the typed codes, secrets cut out. */
import { describe, expect, it } from 'vitest'
import { classifyGitFailure, redactSecrets } from '../../../service/git/classify.js'

describe('classifyGitFailure', () => {
  it.each([
    ["fatal: Authentication failed for 'https://h/r.git/'", 'auth_failed'],
    ["fatal: could not read Username for 'https://h': terminal prompts disabled", 'auth_failed'],
    ['git@h: Permission denied (publickey).\nfatal: Could not read from remote repository.', 'auth_failed'],
    ['Host key verification failed.\nfatal: Could not read from remote repository.', 'host_key_rejected'],
    ["fatal: couldn't find remote ref refs/heads/x", 'reference_not_found'],
    [' ! [rejected]        abc -> main (non-fetch first)', 'git_failed'],
    [' ! [rejected]        abc -> main (fetch first)', 'conflict'],
    [
      " ! [remote rejected] abc -> main (cannot lock ref 'refs/heads/main': is at 1 but expected 2)",
      'conflict',
    ],
    [' ! [remote rejected] abc -> main (pre-receive hook declined)', 'push_rejected'],
    ["fatal: '/x.git' does not appear to be a git repository", 'repository_unreachable'],
    [
      "fatal: unable to access 'https://nope.invalid/': Could not resolve host: nope.invalid",
      'repository_unreachable',
    ],
    ['fatal: something nobody expected', 'git_failed'],
  ])('%s → %s', (stderr, code) => {
    expect(classifyGitFailure('fetch', stderr, []).code).toBe(code)
  })

  it('cuts every secret value, and each line of a multi-line one, out of the message', () => {
    const key = '-----BEGIN KEY-----\nAAAAsecretline1\nBBBBsecretline2\n-----END KEY-----'
    const error = classifyGitFailure('fetch', 'fatal: bad token tok-123 near AAAAsecretline1', [
      'tok-123',
      key,
    ])
    expect(error.message).toBe('git fetch failed: fatal: bad token *** near ***')
    expect(redactSecrets('x', [''])).toBe('x')
  })
})
