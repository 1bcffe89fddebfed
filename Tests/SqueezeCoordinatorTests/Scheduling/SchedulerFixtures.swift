import SqueezeGzip
@testable import SqueezeCoordinator

/// Every engine: what the scheduler tests' workers offer unless a test says otherwise.
let all = Set(CompressionEngine.allCases)
/// Worker routing ids the scheduler and policy tests share.
let a: [UInt8] = Array("a".utf8)
let b: [UInt8] = Array("b".utf8)
let c: [UInt8] = Array("c".utf8)

/// The instant scheduler tests act at, unless a test moves time on itself.
let t0 = ContinuousClock.now

/// Drains every assignment the scheduler will make now.
func drain(_ scheduler: inout Scheduler) -> [Assignment] {
    var made: [Assignment] = []
    while let next = scheduler.nextAssignment(now: t0) { made.append(next) }
    return made
}
