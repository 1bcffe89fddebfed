import Testing
@testable import SqueezeCoordinator

@Suite("TickCadence")
struct TickCadenceTests {
    @Test("the defaults (1 s heartbeat, 200 ms progress) tick every 200 ms, not every 100")
    func defaults() {
        let configuration = CoordinatorConfiguration()
        #expect(TickCadence.interval(heartbeat: configuration.heartbeatInterval, progress: configuration.progressInterval) == .milliseconds(200))
    }

    @Test("a short heartbeat ticks five times per period, so heartbeats still go out and are judged on time")
    func shortHeartbeat() {
        #expect(TickCadence.interval(heartbeat: .milliseconds(200), progress: .milliseconds(200)) == .milliseconds(40))
        #expect(TickCadence.interval(heartbeat: .milliseconds(500), progress: .milliseconds(200)) == .milliseconds(100))
    }

    @Test("progress is never later than its interval, and ticks are never closer than 10 ms or further apart than 200 ms")
    func bounds() {
        #expect(TickCadence.interval(heartbeat: .seconds(5), progress: .milliseconds(50)) == .milliseconds(50))
        #expect(TickCadence.interval(heartbeat: .seconds(60), progress: .seconds(5)) == .milliseconds(200))
        #expect(TickCadence.interval(heartbeat: .milliseconds(20), progress: .milliseconds(200)) == .milliseconds(10))
    }
}
