/** Whether an address is the host's own loopback interface (for "open only on loopback" rules). */
import ipaddr from 'ipaddr.js'

/** True for 127.0.0.0/8, ::1 and their IPv4-mapped forms; false for anything else or a non-address. */
export function isLoopbackAddress(address: string): boolean {
  try {
    return ipaddr.process(address).range() === 'loopback'
  } catch {
    return false
  }
}
