import Foundation
import SqueezeProtocol

/// Shows a job's events: a live view on a terminal, plain lines elsewhere, JSON lines for
/// scripts. Failures always go to stderr as one line naming the path and the reason.
struct ProgressRenderer {
    let mode: OutputMode
    private var liveLines = 0
    /// Entries of the archive a `--tar` job makes (from its `started`); nil for a folder job.
    private var archiveEntries: Int?
    private var lastPlain = ContinuousClock.now
    private var lastLive = ContinuousClock.now - .seconds(1)
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// Where `trace` events go (`--trace`); nil when none are asked for.
    let trace: TraceOutput?

    init(mode: OutputMode, trace: TraceOutput? = nil) {
        self.mode = mode
        self.trace = trace
    }

    /// Shows every event until the job's `finished` event, which it returns.
    mutating func follow<Events: AsyncSequence<JobEvent, Never>>(_ events: Events) async -> JobSummary? {
        for await event in events {
            show(event)
            if case .finished(let summary) = event { return summary }
        }
        return nil
    }

    mutating func show(_ event: JobEvent) {
        switch event {
        case .started(let start): trace?.started(start)
        case .trace(let chunk):
            // For the trace file only: the JSON lines stay readable.
            trace?.add(chunk)
            return
        default: break
        }
        if mode == .json {
            // One line per file, as ever: a batch of them arrives as one event.
            var text = Data()
            for line in event.lines {
                guard let data = try? encoder.encode(line) else { continue }
                text += data + Data([0x0a])
            }
            FileHandle.standardOutput.write(text)
            return
        }
        switch event {
        case .started(let start):
            if mode == .plain {
                let engine = start.engine.map { " with \($0)" } ?? ""
                let more = start.scanning == true ? " found so far (scanning)" : ""
                let what = start.archiveEntries.map { "archive of \($0) entries" } ?? "\(start.files) files"
                out("squeeze: job \(start.jobID): \(what), \(Formatting.bytes(start.bytes))\(more) from \(start.source) to \(start.destination)\(engine)")
            }
            archiveEntries = start.archiveEntries
        case .skipped, .entriesSkipped:
            break  // listed in the summary
        case .fileFailed(let note):
            clearLive()
            err("squeeze: \(note.path): \(note.reason)")
        case .filesFailed(let notes):
            clearLive()
            for note in notes.entries { err("squeeze: \(note.path): \(note.reason)") }
        case .fileDone, .filesDone, .trace:
            break
        case .progress(let snapshot):
            if mode == .live {
                drawLive(snapshot)
            } else if ContinuousClock.now - lastPlain >= .seconds(2) {
                lastPlain = .now
                out("squeeze: \(percent(snapshot))% \(snapshot.filesDone)/\(snapshot.files)\(found(snapshot)) files \(Formatting.bytes(snapshot.bytesDone))/\(Formatting.bytes(snapshot.bytes))\(found(snapshot)) \(Formatting.rate(snapshot.bytesDone, snapshot.seconds)) ETA \(eta(snapshot))")
            }
        case .finished(let summary):
            clearLive()
            printSummary(summary)
        }
    }

    private func percent(_ snapshot: ProgressSnapshot) -> Int {
        snapshot.bytes == 0 ? 100 : Int(Double(snapshot.bytesDone) * 100 / Double(snapshot.bytes))
    }

    /// "+" after totals the scan is still adding to.
    private func found(_ snapshot: ProgressSnapshot) -> String {
        snapshot.scanning == true ? "+" : ""
    }

    private func eta(_ snapshot: ProgressSnapshot) -> String {
        if snapshot.scanning == true { return "scanning" }
        guard snapshot.bytesDone > 0, snapshot.seconds > 0 else { return "--" }
        let rate = Double(snapshot.bytesDone) / snapshot.seconds
        return Formatting.duration(Double(snapshot.bytes - min(snapshot.bytes, snapshot.bytesDone)) / rate)
    }

    private mutating func drawLive(_ snapshot: ProgressSnapshot) {
        guard ContinuousClock.now - lastLive >= .milliseconds(100) else { return }
        lastLive = .now
        var lines: [String] = []
        let width = 40
        for file in snapshot.active {
            let fraction = file.total == 0 ? 1 : Double(file.done) / Double(file.total)
            let name = file.path.count > 40 ? "…" + file.path.suffix(39) : file.path
            lines.append("  [\(Formatting.bar(fraction, width: 20))] \(String(format: "%3d", Int(fraction * 100)))%  \(name)")
        }
        let fraction = snapshot.bytes == 0 ? 1 : Double(snapshot.bytesDone) / Double(snapshot.bytes)
        let ratio = snapshot.bytesDone == 0 ? 0 : Double(snapshot.bytesOut) / Double(snapshot.bytesDone)
        lines.append("[\(Formatting.bar(fraction, width: width))] \(percent(snapshot))%  \(snapshot.filesDone)/\(snapshot.files)\(found(snapshot)) files  \(Formatting.bytes(snapshot.bytesDone))/\(Formatting.bytes(snapshot.bytes))\(found(snapshot))  \(Formatting.rate(snapshot.bytesDone, snapshot.seconds))  ratio \(String(format: "%.3f", ratio))  ETA \(eta(snapshot))  workers \(snapshot.workers)")
        var text = liveLines > 0 ? "\u{1b}[\(liveLines)F" : ""
        for line in lines { text += "\u{1b}[2K" + line + "\n" }
        if lines.count < liveLines {
            for _ in lines.count..<liveLines { text += "\u{1b}[2K\n" }
            text += "\u{1b}[\(liveLines - lines.count)F"
        }
        liveLines = lines.count
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    private mutating func clearLive() {
        guard mode == .live, liveLines > 0 else { return }
        var text = "\u{1b}[\(liveLines)F"
        for _ in 0..<liveLines { text += "\u{1b}[2K\n" }
        text += "\u{1b}[\(liveLines)F"
        FileHandle.standardOutput.write(Data(text.utf8))
        liveLines = 0
    }

    private func printSummary(_ summary: JobSummary) {
        let ratio = summary.bytesIn == 0 ? 0 : Double(summary.bytesOut) / Double(summary.bytesIn) * 100
        let kept = summary.filesKept.map { $0 > 0 ? " (\($0) kept from before)" : "" } ?? ""
        let what = archiveEntries.map { summary.filesCompressed > 0 ? "archive of \($0) entries" : "no archive" } ?? "\(summary.filesCompressed) files"
        out("squeeze: \(summary.state.rawValue): \(what)\(kept), \(Formatting.bytes(summary.bytesIn)) -> \(Formatting.bytes(summary.bytesOut)) (\(String(format: "%.1f", ratio))%) in \(String(format: "%.2f", summary.seconds))s, \(Formatting.rate(summary.bytesIn, summary.seconds))")
        if !summary.skipped.isEmpty {
            out("squeeze: skipped \(summary.skippedCount) non-regular entries:")
            for note in summary.skipped { out("  \(note.path): \(note.reason)") }
            if summary.skippedCount > summary.skipped.count { out("  and \(summary.skippedCount - summary.skipped.count) more (--json lists each)") }
        }
        if !summary.failed.isEmpty {
            err("squeeze: \(summary.failedCount) files failed:")
            for note in summary.failed { err("  \(note.path): \(note.reason)") }
            if summary.failedCount > summary.failed.count { err("  and \(summary.failedCount - summary.failed.count) more, each reported above") }
        }
        if let message = summary.message, summary.state != .completed {
            err("squeeze: job \(summary.state.rawValue): \(message)")
        }
    }

    private func out(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    private func err(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
