/**
 * What one command that talks to a remote needs: the parsed URL, and an environment carrying the
 * credentials (as file paths only) that lives as long as the command, plus the secret values to cut
 * out of any message. Everything written for it is removed afterwards.
 */

import { invalidInput } from './errors.js'
import { httpCredentialEnv, httpSecrets } from './http-credentials.js'
import { withPrivateDir } from './private-dir.js'
import type { RemoteUrl } from './remote-url.js'
import { sshCredentialEnv, sshSecrets } from './ssh-credentials.js'
import type { GitCredentials } from './types.js'

export interface RemoteSession {
  env: Record<string, string>
  secrets: string[]
}

export function credentialSecrets(credentials: GitCredentials | undefined): string[] {
  if (credentials === undefined) return []
  return 'http' in credentials ? httpSecrets(credentials.http) : sshSecrets(credentials.ssh)
}

export async function withRemoteSession<T>(
  remote: RemoteUrl,
  credentials: GitCredentials | undefined,
  timeoutMs: number,
  fn: (session: RemoteSession) => Promise<T>,
): Promise<T> {
  const secrets = credentialSecrets(credentials)
  return withPrivateDir(async (dir) => {
    if (remote.transport === 'ssh') {
      if (credentials === undefined || !('ssh' in credentials))
        throw invalidInput(
          'ssh_credentials',
          `${remote.transport} remotes need ssh credentials (a private key and host keys)`,
        )
      const ssh = await sshCredentialEnv(dir, credentials.ssh, remote.host!, remote.port!, timeoutMs)
      const result = await fn({ env: ssh.env, secrets })
      await ssh.recordLearnt()
      return result
    }
    if (credentials !== undefined && 'ssh' in credentials)
      throw invalidInput('ssh_credentials', 'ssh credentials were given for a remote that is not ssh')
    const env: Record<string, string> = {}
    if (remote.transport === 'http' && credentials !== undefined)
      Object.assign(env, await httpCredentialEnv(dir, credentials.http))
    return fn({ env, secrets })
  })
}
