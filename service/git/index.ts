/** The git layer: mirrors of remote repositories, references, trees, commits and branches. */
export { type BranchState, branchState, deleteBranch } from './branch.js'
export { type CommitRequest, type CommitResult, commitFiles } from './commit.js'
export { GIT_ERROR_STATUS, GitError, type GitErrorCode } from './errors.js'
export { fingerprintOf } from './known-hosts.js'
export { existingMirror, GitMirror, type MirrorOptions, mirror } from './mirror.js'
export { DEFAULT_SWEEP_GRACE_MS, type SweepOptions, sweepMirrors } from './mirror-sweep.js'
export { commitOf, type ResolvedReference, resolveReference } from './refs.js'
export { parseRemoteUrl, type RemoteUrl } from './remote-url.js'
export { type ReadTreeOptions, readTree, type TreeFiles } from './tree.js'
export type {
  GitCredentials,
  GitLimits,
  HostKeyVerification,
  HttpCredentials,
  SshCredentials,
} from './types.js'
