import Testing
@testable import SqueezeCoordinator

@Suite("WarningThrottle")
struct WarningThrottleTests {
    @Test("the first occurrence is logged, the rest of the interval only counted, then one summary per interval")
    func floodCostsALinePerInterval() {
        let start = ContinuousClock.now
        var throttle = WarningThrottle(interval: .seconds(10))
        #expect(throttle.admit("malformed", now: start) == 0)
        var lines = 1
        var accounted = 1
        // 1,000 a second for 30 seconds, with the ticker asking for summaries every 100 ms.
        for tick in 1...30_000 {
            let now = start + .milliseconds(tick)
            if let unlogged = throttle.admit("malformed", now: now) {
                lines += 1
                accounted += 1 + unlogged
            }
            if tick % 100 == 0 {
                for summary in throttle.due(now: now) {
                    lines += 1
                    accounted += summary.count
                }
            }
        }
        #expect(lines <= 4, "\(lines) lines for 30,001 occurrences over 30 s")
        #expect(accounted == 30_001, "every occurrence is logged or counted on a line")
    }

    @Test("an occurrence after the interval is logged with how many were not")
    func countCarriedOnTheNextLine() {
        let start = ContinuousClock.now
        var throttle = WarningThrottle(interval: .seconds(10))
        #expect(throttle.admit("late", now: start) == 0)
        #expect(throttle.admit("late", now: start + .seconds(1)) == nil)
        #expect(throttle.admit("late", now: start + .seconds(2)) == nil)
        #expect(throttle.admit("late", now: start + .seconds(11)) == 2)
        #expect(throttle.due(now: start + .seconds(30)).isEmpty, "nothing left unlogged")
    }

    @Test("kinds are limited apart; a kind quiet for an interval is logged at once again")
    func kindsApartAndForgotten() {
        let start = ContinuousClock.now
        var throttle = WarningThrottle(interval: .seconds(10))
        #expect(throttle.admit("a", now: start) == 0)
        #expect(throttle.admit("b", now: start) == 0)
        #expect(throttle.admit("a", now: start + .seconds(1)) == nil)
        let due = throttle.due(now: start + .seconds(10))
        #expect(due.count == 1 && due[0].kind == "a" && due[0].count == 1)
        _ = throttle.due(now: start + .seconds(25))
        #expect(throttle.admit("a", now: start + .seconds(26)) == 0)
        #expect(throttle.due(now: start + .seconds(5)).isEmpty)
    }
}
