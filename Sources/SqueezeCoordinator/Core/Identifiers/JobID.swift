/// The kind of a job's number: unique across the coordinator's life and its journal.
enum JobIdentity: IdentifierKind {}

/// A job's number, as clients see it.
typealias JobID = Identifier<JobIdentity>
