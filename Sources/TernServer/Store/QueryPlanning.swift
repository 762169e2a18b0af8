/// Whether the store plans this task's reads for their own arguments, call by call.
///
/// PostgreSQL keeps one generic plan for a prepared statement after five calls on a connection,
/// chosen from the table statistics of that moment, until the next `ANALYZE` of its tables. The SDK's
/// reads are key lookups whose generic plans stay right however the tables grow; the management API's
/// (a project's test devices and profiles, a message's deliveries, lists and counts) are not: on a
/// fresh cluster, plans kept from while the tables were small walked every subscription or profile
/// for a few rows later (`bench/server/plans.sh`, docs/scaling.md). The router sets this for the
/// management API (and so the dashboard), whose reads then take a plan per call: a fraction of a
/// millisecond on calls an operator makes, nothing on the SDK's routes. SQLite plans each statement
/// once, from its indexes alone, and ignores it.
enum QueryPlanning {
    /// True inside a management API request.
    @TaskLocal static var perCall = false
}
