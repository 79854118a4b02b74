/**
 * A small data-filter policy over `input.tickets` (owner or public tickets when the system's
 * settings show them), shared by the compile playground's service and browser tests.
 */
export const TICKETS_FILTER = `package filters

# METADATA
# scope: document
# custom:
#   unknowns: [input.tickets]
include if input.tickets.owner == input.user

include if {
\tinput.tickets.public == true
\tdata.settings.show_public
}
`

/** Its name in the content of a system `tickets` when pushed as policy `filters`, file `filters.rego`. */
export const TICKETS_FILTER_STORED = 'systems/tickets/filters/filters.rego'
