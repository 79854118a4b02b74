/**
 * Runs the real `regent` launcher (bin/regent.js) as a child process, as a user would.
 */
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

export const REGENT_BIN = fileURLToPath(new URL('../../bin/regent.js', import.meta.url))

export interface CliResult {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs `regent ...args` with optional stdin; resolves when the process exits. */
export function runRegent(
  args: string[],
  options: { stdin?: string; cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [REGENT_BIN, ...args], {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
      timeout: options.timeoutMs ?? 20_000,
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk) => {
      stdout += chunk
    })
    child.stderr.on('data', (chunk) => {
      stderr += chunk
    })
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
    child.stdin.end(options.stdin ?? '')
  })
}
