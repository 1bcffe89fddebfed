import Foundation
import SqueezeProtocol
import Testing

struct JobEventJSONTests {
    /// The event name and the payload encoded on its own.
    static func parts(_ event: JobEvent) throws -> (name: String, payload: Data) {
        let encoder = JSONEncoder()
        return switch event {
        case .started(let p): ("started", try encoder.encode(p))
        case .skipped(let p): ("skipped", try encoder.encode(p))
        case .fileFailed(let p): ("fileFailed", try encoder.encode(p))
        case .entriesSkipped(let p): ("entriesSkipped", try encoder.encode(p))
        case .filesFailed(let p): ("filesFailed", try encoder.encode(p))
        case .fileDone(let p): ("fileDone", try encoder.encode(p))
        case .filesDone(let p): ("filesDone", try encoder.encode(p))
        case .progress(let p): ("progress", try encoder.encode(p))
        case .trace(let p): ("trace", try encoder.encode(p))
        case .finished(let p): ("finished", try encoder.encode(p))
        }
    }

    /// Decodes `body` as the payload type of `event`, ignoring the `event` key.
    static func payloadMatches(_ body: Data, _ event: JobEvent) throws -> Bool {
        let decoder = JSONDecoder()
        return switch event {
        case .started(let p): try decoder.decode(JobStart.self, from: body) == p
        case .skipped(let p): try decoder.decode(EntryNote.self, from: body) == p
        case .fileFailed(let p): try decoder.decode(EntryNote.self, from: body) == p
        case .entriesSkipped(let p): try decoder.decode(EntryNotes.self, from: body) == p
        case .filesFailed(let p): try decoder.decode(EntryNotes.self, from: body) == p
        case .fileDone(let p): try decoder.decode(FileDone.self, from: body) == p
        case .filesDone(let p): try decoder.decode(FilesDone.self, from: body) == p
        case .progress(let p): try decoder.decode(ProgressSnapshot.self, from: body) == p
        case .trace(let p): try decoder.decode(TraceChunk.self, from: body) == p
        case .finished(let p): try decoder.decode(JobSummary.self, from: body) == p
        }
    }

    @Test(arguments: Fixtures.events)
    func wireBodyIsOneFlatObjectWithAnEventKey(event: JobEvent) throws {
        let frames = WireCodec.encodeBytes(.jobEvent(event))
        #expect(frames.count == 2)
        let body = Data(frames[1])
        let text = String(decoding: body, as: UTF8.self)
        let (name, payload) = try Self.parts(event)

        #expect(text.hasPrefix("{") && text.hasSuffix("}"))
        #expect(text.contains(#""event":"\#(name)""#))
        let object = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        #expect(object["event"] as? String == name)
        // Flat: the payload's own keys sit beside "event", not under a nested key.
        let payloadObject = try #require(try JSONSerialization.jsonObject(with: payload) as? [String: Any])
        #expect(Set(object.keys) == Set(payloadObject.keys).union(["event"]))
        #expect(try Self.payloadMatches(body, event))
    }

    @Test(arguments: Fixtures.events)
    func eventRoundTripsThroughJSON(event: JobEvent) throws {
        let data = try JSONEncoder().encode(event)
        #expect(try JSONDecoder().decode(JobEvent.self, from: data) == event)
    }

    @Test func handWrittenEventsDecode() throws {
        let decoder = JSONDecoder()
        let fileDone = #"{"event":"fileDone","path":"a/c.log","bytesIn":10000,"bytesOut":2345}"#
        #expect(try decoder.decode(JobEvent.self, from: Data(fileDone.utf8)) == .fileDone(Fixtures.done))
        let batch = #"{"event":"filesDone","files":[{"path":"a/c.log","bytesIn":10000,"bytesOut":2345},{"path":"b","bytesIn":0,"bytesOut":22}]}"#
        #expect(try decoder.decode(JobEvent.self, from: Data(batch.utf8))
                == .filesDone(FilesDone(files: [Fixtures.done, FileDone(path: "b", bytesIn: 0, bytesOut: 22)])))
        let skipped = #"{"reason":"not a regular file (socket)","event":"skipped","path":"sock"}"#
        #expect(try decoder.decode(JobEvent.self, from: Data(skipped.utf8)) == .skipped(Fixtures.skippedNote))
        let skippedMany = #"{"event":"entriesSkipped","entries":[{"path":"sock","reason":"not a regular file (socket)"},{"path":"d/l","reason":"loop"}]}"#
        #expect(try decoder.decode(JobEvent.self, from: Data(skippedMany.utf8))
                == .entriesSkipped(EntryNotes(entries: [Fixtures.skippedNote, EntryNote(path: "d/l", reason: "loop")])))
        let failedMany = #"{"event":"filesFailed","entries":[{"path":"a.gz","reason":"exists","outputExists":true}]}"#
        #expect(try decoder.decode(JobEvent.self, from: Data(failedMany.utf8))
                == .filesFailed(EntryNotes(entries: [EntryNote(path: "a.gz", reason: "exists", outputExists: true)])))
        let finished = #"""
        {"event":"finished","jobID":8,"state":"cancelled","message":"client went away","filesCompressed":0,
         "bytesIn":0,"bytesOut":0,"seconds":0,"skipped":[],"failed":[]}
        """#
        #expect(try decoder.decode(JobEvent.self, from: Data(finished.utf8)) == .finished(Fixtures.cancelledSummary))
    }

    @Test func nilMessageIsOmittedFromFinished() throws {
        let body = Data(WireCodec.encodeBytes(.jobEvent(.finished(Fixtures.summary)))[1])
        let object = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        #expect(object["message"] == nil)
        #expect(object["state"] as? String == "completed")
    }

    @Test("a batch event stands for one line per entry, in order; any other event for itself")
    func linesOfBatchEvents() {
        let other = EntryNote(path: "d/l", reason: "symbolic link (not followed)")
        #expect(JobEvent.entriesSkipped(EntryNotes(entries: [Fixtures.skippedNote, other])).lines
                == [.skipped(Fixtures.skippedNote), .skipped(other)])
        #expect(JobEvent.filesFailed(EntryNotes(entries: [Fixtures.failedNote, other])).lines
                == [.fileFailed(Fixtures.failedNote), .fileFailed(other)])
        #expect(JobEvent.filesDone(FilesDone(files: [Fixtures.done])).lines == [.fileDone(Fixtures.done)])
        #expect(JobEvent.filesFailed(EntryNotes(entries: [])).lines.isEmpty)
        #expect(JobEvent.skipped(other).lines == [.skipped(other)])
        #expect(JobEvent.finished(Fixtures.summary).lines == [.finished(Fixtures.summary)])
    }

    @Test("a summary's counts are never fewer than it lists, whatever totals it carries")
    func summaryCountsCoverTheLists() {
        var summary = Fixtures.summary
        #expect(summary.skippedCount == 1 && summary.failedCount == 1)
        summary.skippedTotal = 40_000
        summary.failedTotal = 7
        #expect(summary.skippedCount == 40_000 && summary.failedCount == 7)
        // A total below the list, or negative, as a faulty coordinator might send.
        summary.skippedTotal = -5
        summary.failedTotal = 0
        #expect(summary.skippedCount == 1 && summary.failedCount == 1)
    }
}
