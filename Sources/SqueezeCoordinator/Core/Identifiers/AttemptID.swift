/// The kind of an attempt's number: one per dispatch of an item or a stitch to a worker, unique
/// across the coordinator's life, so that an answer names exactly the try it answers.
enum AttemptIdentity: IdentifierKind {}

/// One attempt's number; it also names the attempt's pieces and stitch files in the workspace.
typealias AttemptID = Identifier<AttemptIdentity>
