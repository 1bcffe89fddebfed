import SqueezeProtocol

/// A job's skipped entries, or its failed files: how many, and the first of them up to what its
/// summary lists (`EventBudget.summaryListBytes`). Each note went to the job's clients as it was
/// found, so a job of a million failures (a tree run again without `force`: every output
/// exists) holds a count and at most about a megabyte of notes (512 KiB of each of the two
/// kinds below), not a million of them. Failures other than an existing output are kept apart
/// and listed first, so whether every failure was an existing output reads the same from the
/// list as from all of them.
struct JobNotes: Sendable {
    /// The first notes of one kind, in order, while they fit the budget.
    private struct Kept: Sendable {
        var notes: [EntryNote] = []
        var bytes = 0
        /// Set by the first note that did not fit: later ones are not kept either, so the
        /// list is always the first ones.
        var full = false

        mutating func keep(_ note: EntryNote) {
            guard !full else { return }
            let size = EventBudget.bytes(of: note) + EventBudget.fieldBytes
            guard notes.isEmpty || bytes + size <= EventBudget.summaryListBytes else {
                full = true
                return
            }
            notes.append(note)
            bytes += size
        }
    }

    /// How many notes were added.
    private(set) var count = 0
    private var others = Kept()
    private var existing = Kept()

    /// No notes.
    init() {}

    /// Whether none were added.
    var isEmpty: Bool { count == 0 }

    /// Adds one.
    mutating func append(_ note: EntryNote) {
        count += 1
        if note.outputExists == true { existing.keep(note) } else { others.keep(note) }
    }

    /// Adds each of `more`, in order.
    static func += (notes: inout JobNotes, more: [EntryNote]) {
        for note in more { notes.append(note) }
    }

    /// What a summary lists: the first notes within the budget, those other than an existing
    /// output first, each kind in the order added.
    var listed: [EntryNote] {
        let kept = others.notes + existing.notes
        return EventBudget.parts(kept, budget: EventBudget.summaryListBytes, bytes: EventBudget.bytes(of:)).first.map(Array.init) ?? []
    }
}
