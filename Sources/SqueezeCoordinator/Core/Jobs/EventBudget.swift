import SqueezeProtocol

/// How much text one event to a client may carry: a client takes at most `maxControlBody`
/// (8 MiB) in one message and drops the connection past it, so lists of entries that grow with
/// a job (its files done, skipped or failed) are cut to stay well inside. With JSON's escapes
/// at most six bytes for one, 1 MiB of text stays under 7 MiB.
enum EventBudget {
    /// Text bytes of the entries one `filesDone`, `entriesSkipped` or `filesFailed` may hold: a
    /// slice's 8,192 entries with paths of 4 KiB would be 32 MiB of JSON.
    static let partBytes = 1 << 20

    /// Text bytes of each of a `finished` summary's two lists (skipped and failed), so both
    /// together stay within `partBytes`.
    static let summaryListBytes = partBytes / 2

    /// What JSON adds to an entry's text: its keys, quotes and separators, with room.
    static let fieldBytes = 64

    /// `items` in runs whose `bytes` (plus `fieldBytes` each) stay within `budget`,
    /// each run at least one item; none for no items.
    static func parts<T>(_ items: [T], budget: Int = partBytes, bytes: (T) -> Int) -> [ArraySlice<T>] {
        var parts: [ArraySlice<T>] = []
        var start = 0
        var size = 0
        for (index, item) in items.enumerated() {
            let itemBytes = bytes(item) + fieldBytes
            if index > start, size + itemBytes > budget {
                parts.append(items[start..<index])
                start = index
                size = 0
            }
            size += itemBytes
        }
        if start < items.count { parts.append(items[start...]) }
        return parts
    }

    /// The text bytes of a note.
    static func bytes(of note: EntryNote) -> Int {
        note.path.utf8.count + note.reason.utf8.count
    }
}
