/// Runs one async step per item, at most `width` at once, and hands each result to `collect`
/// as it comes (in completion order): for commands that check or decompress many files on a
/// `BlockingIOPool` without queueing all of them at once.
enum FanOut {
    static func run<Item: Sendable, Outcome: Sendable>(
        _ items: [Item], width: Int, _ step: @escaping @Sendable (Item) async -> Outcome, collect: (Outcome) -> Void
    ) async {
        await withTaskGroup(of: Outcome.self) { group in
            var next = items.makeIterator()
            for _ in 0..<max(1, width) {
                guard let item = next.next() else { break }
                group.addTask { await step(item) }
            }
            for await outcome in group {
                collect(outcome)
                if let item = next.next() {
                    group.addTask { await step(item) }
                }
            }
        }
    }
}
