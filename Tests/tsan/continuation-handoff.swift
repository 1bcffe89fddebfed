// Why `make tsan` builds the Swift code without optimisation: this program is race-free (a
// thread of its own makes an array and hands it to the awaiting task through a continuation,
// as BlockingIOPool does), yet this toolchain's Thread Sanitizer reports a data race on it when
// it is built optimised, and none at -Onone:
//
//   swiftc -parse-as-library -O -sanitize=thread continuation-handoff.swift -o /tmp/handoff && /tmp/handoff
//   swiftc -parse-as-library -Onone -sanitize=thread continuation-handoff.swift -o /tmp/handoff && /tmp/handoff
//
// Measured 2026-11-29 (Swift 6.3.1, Linux x86_64): built -O, one report in
// each of three runs; at -Onone, none in three. It is not part of any build.
import Dispatch
import Foundation

/// One thread that runs the closures handed to it, in order.
final class HandoffThread: @unchecked Sendable {
    private let lock = NSLock()
    private var jobs: [@Sendable () -> Void] = []
    private let available = DispatchSemaphore(value: 0)

    init() {
        Thread { [self] in
            while true {
                available.wait()
                lock.lock()
                let job = jobs.removeFirst()
                lock.unlock()
                job()
            }
        }.start()
    }

    /// `body`'s result, made on the thread and handed back through a continuation.
    func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            lock.lock()
            jobs.append { continuation.resume(returning: body()) }
            lock.unlock()
            available.signal()
        }
    }
}

@main
struct ContinuationHandoff {
    static func main() async {
        await withTaskGroup(of: Int.self) { group in
            for _ in 0..<4 { group.addTask { await handOff() } }
            var total = 0
            for await count in group { total += count }
            print("elements handed over: \(total)")
        }
    }

    static func handOff() async -> Int {
        let thread = HandoffThread()
        var total = 0
        for round in 0..<5_000 {
            let made = await thread.run {
                if round % 3 == 0 { usleep(50) }
                return (0..<(round % 7 + 1)).map { $0 * 2 }
            }
            total += made.count
        }
        return total
    }
}
