extension Stage {
    /// Where the stage's queue counts as drained and as full. Far above what a healthy stage
    /// holds (the readers and checkers take a few at a time, a writer batches its commands), so
    /// they only bite when a stage falls behind: a slow disk, a journal on a slow file system,
    /// a flood of jobs waiting to scan.
    var watermarks: (low: Int, high: Int) {
        switch self {
        case .dispatch: (128, 256)
        case .scan: (8, 16)
        case .check: (32, 64)
        case .journal: (256, 512)
        case .write: (512, 1024)
        }
    }

    /// A new queue for this stage, and its consumer's end.
    func queue<Element: Sendable>(of: Element.Type) -> (StageQueue<Element>, StageConsumer<Element>) {
        StageQueue.make(self, lowWatermark: watermarks.low, highWatermark: watermarks.high)
    }
}
