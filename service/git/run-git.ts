/**
 * Runs the `git` executable with an argument array (no shell), a clean environment, a time limit
 * and bounded output. Each run is the leader of its own process group, so a timeout kills git and
 * everything it started (`git-remote-https`, `ssh`, `index-pack`) and nothing is left running.
 */
import { spawn } from 'node:child_process'
import { GitError, timedOut, tooLarge } from './errors.js'

export interface GitRun {
  /** Working directory (a bare repository, usually). */
  cwd?: string
  /** Variables added to the clean base environment. */
  env?: Record<string, string>
  /** Bytes written to stdin, then closed. */
  input?: string | Buffer
  timeoutMs: number
  /** Largest stdout kept; more fails the run (default 64 MiB). */
  maxOutputBytes?: number
  /** Called every `watchEveryMs` while git runs; a thrown error stops the run with that error. */
  watch?: () => Promise<void>
  watchEveryMs?: number
}

export interface GitResult {
  code: number
  stdout: Buffer
  stderr: string
}

/**
 * The environment every git run starts from: no system or user configuration (their credential
 * helpers, `insteadOf` rewrites and hooks would change what runs), no terminal prompts, English
 * messages (they are classified), and only the transports the layer supports.
 */
function baseEnv(): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    LC_ALL: 'C',
    LANG: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_ALLOW_PROTOCOL: 'file:git:http:https:ssh',
    GIT_PROTOCOL_FROM_USER: '0',
    HOME: '/nonexistent',
  }
}

/** Runs git; resolves with its exit code and output (a non-zero code is the caller's to judge). */
export function runGit(args: string[], run: GitRun, what = args[0] ?? 'git'): Promise<GitResult> {
  const maxOutput = run.maxOutputBytes ?? 64 * 1024 * 1024
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, {
      cwd: run.cwd,
      env: { ...baseEnv(), ...run.env },
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    })
    const out: Buffer[] = []
    let outBytes = 0
    let err = ''
    let failure: Error | undefined
    let watching = false
    const killGroup = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL')
      } catch {
        // the group is already gone
      }
    }
    const stopGroup = (why: Error) => {
      failure ??= why
      killGroup()
    }
    const timer = setTimeout(() => stopGroup(timedOut(what, run.timeoutMs)), run.timeoutMs)
    const watcher =
      run.watch === undefined
        ? undefined
        : setInterval(() => {
            if (watching) return
            watching = true
            run.watch!()
              .catch((e: Error) => stopGroup(e))
              .finally(() => {
                watching = false
              })
          }, run.watchEveryMs ?? 250)
    child.stdout.on('data', (chunk: Buffer) => {
      outBytes += chunk.length
      if (outBytes > maxOutput) stopGroup(tooLarge(`git ${what} printed more than ${maxOutput} bytes`))
      else out.push(chunk)
    })
    child.stderr.on('data', (chunk: Buffer) => {
      // Keep the tail only: progress lines can be long, the error is at the end.
      err = (err + chunk.toString('utf8')).slice(-16_384)
    })
    child.stdin.on('error', () => {
      // git may exit before reading all input; its exit code tells what happened
    })
    child.on('error', (e) => {
      clearTimeout(timer)
      if (watcher) clearInterval(watcher)
      reject(new GitError('git_failed', `could not run git (${e.message}); is the git executable installed?`))
    })
    child.on('close', (code) => {
      clearTimeout(timer)
      if (watcher) clearInterval(watcher)
      // git waits for its own children, so after a normal exit the group is empty; it is only
      // killed on timeout or a limit, while its leader still runs (no risk of a reused id).
      if (failure) reject(failure)
      else resolve({ code: code ?? -1, stdout: Buffer.concat(out), stderr: err })
    })
    child.stdin.end(run.input ?? '')
  })
}
