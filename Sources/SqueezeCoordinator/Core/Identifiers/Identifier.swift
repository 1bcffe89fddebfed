/// A number that names one thing of one kind — a job, an item of a job, an attempt at an item —
/// typed by its kind, so that one kind's number cannot be passed where another's is meant.
/// The wire and the journal carry the bare `value`; the coordinator converts at their edge.
struct Identifier<Kind: IdentifierKind>: Hashable, Sendable {
    /// The number as the wire and the journal carry it.
    let value: UInt64

    /// The identifier whose number is `value`.
    init(_ value: UInt64) {
        self.value = value
    }

    /// Hands out this identifier and moves on to the next number: a counter of fresh ids (for
    /// attempts, which start at 1 and cannot come near the largest number; job ids from the
    /// journal go through `CoordinatorCore.takeJobID`, which never passes it).
    mutating func take() -> Identifier {
        defer { self = advanced(by: 1) }
        return self
    }
}

extension Identifier: Comparable {
    /// Numeric order: jobs and items are numbered in the order they were made.
    static func < (lhs: Identifier, rhs: Identifier) -> Bool {
        lhs.value < rhs.value
    }
}

extension Identifier: Strideable {
    /// How many numbers lie from this one to `other` (items of a job are consecutive).
    func distance(to other: Identifier) -> Int {
        Int(truncatingIfNeeded: other.value &- value)
    }

    /// The identifier `n` numbers on.
    func advanced(by n: Int) -> Identifier {
        Identifier(value &+ UInt64(bitPattern: Int64(n)))
    }
}

extension Identifier: ExpressibleByIntegerLiteral {
    /// An identifier written as a number (tests, and the first of a sequence).
    init(integerLiteral value: UInt64) {
        self.init(value)
    }
}

extension Identifier: CustomStringConvertible {
    /// The bare number, as users see job ids.
    var description: String { String(value) }
}
