import SqueezeGzip
@testable import SqueezeCoordinator

/// Every engine: what the scheduler tests' workers offer unless a test says otherwise.
let all = Set(CompressionEngine.allCases)
/// Worker routing ids the scheduler and policy tests share.
let a: PeerID = "a"
let b: PeerID = "b"
let c: PeerID = "c"

/// The instant scheduler tests act at, unless a test moves time on itself.
let t0 = ContinuousClock.now

/// Drains every assignment the scheduler will make now.
func drain(_ scheduler: inout Scheduler) -> [Assignment] {
    var made: [Assignment] = []
    while let next = scheduler.nextAssignment(now: t0) { made.append(next) }
    return made
}
