/// What an `Identifier` names; a kind is an uninhabited type used only as a tag.
protocol IdentifierKind: Sendable {}
