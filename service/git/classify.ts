/**
 * Turns git's failure output (LC_ALL=C, so English) into a typed error. Known secret values are
 * cut out of the text first, so no credential reaches a message even if a remote echoed one.
 */
import { GitError } from './errors.js'

const RULES: Array<[RegExp, GitError['code']]> = [
  [
    /Host key verification failed|REMOTE HOST IDENTIFICATION HAS CHANGED|No \S+ host key is known/i,
    'host_key_rejected',
  ],
  [
    /Authentication failed|could not read (Username|Password)|Permission denied \(|returned error: 40[13]|incorrect passphrase|bad passphrase|Load key .*: (incorrect|invalid)/i,
    'auth_failed',
  ],
  [
    /couldn't find remote ref|remote ref does not exist|unknown revision|bad revision/i,
    'reference_not_found',
  ],
  [
    /\[rejected\].*\((non-fast-forward|fetch first|stale info)\)|failed to update ref|cannot lock ref/i,
    'conflict',
  ],
  [/\[remote rejected\]|pre-receive hook declined|protected branch/i, 'push_rejected'],
  [
    /does not appear to be a git repository|Repository not found|repository .* not found|not exported|returned error: 404|Could not resolve host|Connection refused|Connection timed out|Network is unreachable|unable to connect|Could not read from remote repository|unable to access|Connection closed|early EOF/i,
    'repository_unreachable',
  ],
]

export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text
  for (const secret of secrets) {
    if (secret === '') continue
    out = out.split(secret).join('***')
    // A multi-line secret (a private key) could surface line by line.
    for (const line of secret.split('\n')) if (line.trim().length >= 8) out = out.split(line).join('***')
  }
  return out
}

/** The last meaningful lines of git's stderr, without progress noise. */
function summary(stderr: string): string {
  const lines = stderr
    .split(/\r?\n|\r/)
    .map((l) => l.trim())
    .filter(
      (l) =>
        l !== '' &&
        !/^(remote: )?(Counting|Compressing|Receiving|Resolving|Enumerating|Total|Writing)/.test(l),
    )
  return lines.slice(-4).join('; ') || 'no message'
}

export function classifyGitFailure(what: string, stderr: string, secrets: readonly string[]): GitError {
  const clean = redactSecrets(stderr, secrets)
  const code = RULES.find(([pattern]) => pattern.test(clean))?.[1] ?? 'git_failed'
  return new GitError(code, `git ${what} failed: ${summary(clean)}`)
}
