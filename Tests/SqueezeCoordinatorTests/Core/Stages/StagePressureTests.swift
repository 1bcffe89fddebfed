import Testing
@testable import SqueezeCoordinator

/// What a full stage holds back.
@Suite("StagePressure")
struct StagePressureTests {
    @Test("a full reader, checker, journal or writer queue holds back dispatch; a full scanner queue holds back only scans", arguments: [
        (Stage.dispatch, false, true), (.check, false, true), (.journal, false, true), (.write(partition: 1), false, true), (.scan, true, false),
    ])
    func holdsBack(stage: Stage, dispatches: Bool, scans: Bool) {
        var pressure = StagePressure()
        #expect(pressure.allowsDispatch && pressure.allowsScans)
        #expect(pressure.report(stage, full: true) == true)
        #expect(pressure.allowsDispatch == dispatches && pressure.allowsScans == scans)
        #expect(pressure.report(stage, full: false) == true)
        #expect(pressure.allowsDispatch && pressure.allowsScans)
    }

    @Test("each stage counts on its own: dispatch resumes only once every full stage drained, and repeated reports change nothing")
    func stagesCountApart() {
        var pressure = StagePressure()
        #expect(pressure.report(.write(partition: 0), full: true) == true)
        #expect(pressure.report(.write(partition: 1), full: true) == true)
        #expect(pressure.report(.write(partition: 1), full: true) == false, "already full")
        #expect(pressure.report(.scan, full: true) == true)
        #expect(pressure.report(.write(partition: 0), full: false) == true)
        #expect(!pressure.allowsDispatch, "partition 1 is still full")
        #expect(pressure.report(.write(partition: 1), full: false) == true)
        #expect(pressure.allowsDispatch && !pressure.allowsScans)
        #expect(pressure.report(.dispatch, full: false) == false, "a stage that was not full drains to no effect")
    }
}
