/**
 * What memory that the process touches for the first time costs on this machine. A page the
 * kernel maps on first write (a minor page fault) is cheap on bare metal (well under a
 * microsecond); in the VMs this project runs on it has cost 12-14 µs, about 3.3 ms per MB, while
 * writing the same pages again costs about 0.05 ms per MB. Work that builds a large heap (a parsed
 * AST keeps about 40 bytes per byte of source) pays that on every new page V8 maps, so benchmarks
 * that build heaps print it beside their figures: it moves from one day, and one VM, to the next.
 */

const MB = 1024 * 1024

/** Minor page faults of this process so far: each a page it touched for the first time. */
export function pageFaults(): number {
  return process.resourceUsage().minorPageFault
}

export interface FreshMemory {
  /** Milliseconds per page fault (the cost of one first touch). */
  msPerFault: number
  /** Bytes a page fault maps (the page size, as observed). */
  bytesPerFault: number
  /** Milliseconds to write one MB of new memory. */
  msPerMb: number
  /** Milliseconds to write the same MB again. */
  rewriteMsPerMb: number
}

/**
 * Writes `mb` MB of newly mapped memory, then the same memory again, `runs` times; gives the
 * cheapest run (the least disturbed by other work on the machine).
 */
export function measureFreshMemory(mb = 128, runs = 3): FreshMemory {
  let best: FreshMemory | undefined
  for (let r = 0; r < runs; r++) {
    const faultsBefore = pageFaults()
    const t0 = performance.now()
    // allocUnsafeSlow of this size is a fresh mmap: no page of it has been touched yet.
    const buffer = Buffer.allocUnsafeSlow(mb * MB)
    buffer.fill(1)
    const first = performance.now() - t0
    const faults = Math.max(1, pageFaults() - faultsBefore)
    const t1 = performance.now()
    buffer.fill(2)
    const again = performance.now() - t1
    const run = {
      msPerFault: first / faults,
      bytesPerFault: (mb * MB) / faults,
      msPerMb: first / mb,
      rewriteMsPerMb: again / mb,
    }
    if (best === undefined || run.msPerMb < best.msPerMb) best = run
  }
  return best as FreshMemory
}

/** One line for a benchmark's header. */
export function describeFreshMemory(m: FreshMemory): string {
  return (
    `fresh memory: ${m.msPerMb.toFixed(2)} ms per MB on first write ` +
    `(${(m.msPerFault * 1000).toFixed(1)} µs per ${(m.bytesPerFault / 1024).toFixed(0)} KiB page fault), ` +
    `${m.rewriteMsPerMb.toFixed(3)} ms per MB written again`
  )
}
