import Foundation

/// Polls a condition until it holds or a deadline passes.
enum Poll {
    @discardableResult
    static func until(timeout: TimeInterval, every interval: TimeInterval = 0.1, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if try condition() { return true }
            if Date() >= deadline { return false }
            usleep(UInt32(interval * 1_000_000))
        }
    }
}
