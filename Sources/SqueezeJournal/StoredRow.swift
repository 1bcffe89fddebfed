import Foundation
import GRDB

/// One row read back from the journal, with its columns checked as they are taken out: the file is
/// outside input, so a value of the wrong type or out of range is a `.corrupt` `JournalProblem`
/// naming the row and column, never a crash.
struct StoredRow {
    /// What a row records, to name it in messages; worded only when a message is made.
    enum Subject {
        /// A job, its id once read.
        case job(UInt64?)
        /// A published file of a job, its path once read.
        case published(job: UInt64, path: [UInt8]?)
        /// A row of published files of a job in one folder.
        case publishedGroup(job: UInt64, directory: [UInt8])
        /// The row holding the largest job id.
        case jobSequence

        var description: String {
            switch self {
            case .job(let id?): "job \(id)"
            case .job(nil): "a job"
            case .published(let job, let path?): "published file \(String(decoding: path, as: UTF8.self).debugDescription) of job \(job)"
            case .published(let job, nil): "a published file of job \(job)"
            case .publishedGroup(let job, let directory):
                "published files of job \(job) in folder \(String(decoding: directory, as: UTF8.self).debugDescription)"
            case .jobSequence: "the job sequence"
            }
        }
    }

    /// The row, valid while its cursor stays on it.
    private let row: Row
    /// The row for messages.
    private let subject: Subject

    /// Wraps `row`, which records `subject`.
    init(_ row: Row, _ subject: Subject) {
        self.row = row
        self.subject = subject
    }

    /// The same row, once more of what it records is known.
    func renamed(_ subject: Subject) -> StoredRow {
        StoredRow(row, subject)
    }

    /// An INTEGER column.
    func int64(_ index: Int, _ column: String) throws -> Int64 {
        guard case .int64(let value) = try value(index, column).storage else { throw mismatch(index, column, "an integer") }
        return value
    }

    /// An INTEGER column holding a UInt64's bit pattern.
    func uint64(_ index: Int, _ column: String) throws -> UInt64 {
        UInt64(bitPattern: try int64(index, column))
    }

    /// An INTEGER column holding a count, never negative.
    func count(_ index: Int, _ column: String) throws -> Int {
        let value = try int64(index, column)
        guard value >= 0, let count = Int(exactly: value) else { throw corrupt("\(column) is \(value), not a count") }
        return count
    }

    /// An INTEGER column holding a CRC-32.
    func uint32(_ index: Int, _ column: String) throws -> UInt32 {
        let value = try int64(index, column)
        guard let crc = UInt32(exactly: value) else { throw corrupt("\(column) is \(value), outside 32 bits") }
        return crc
    }

    /// A TEXT column.
    func text(_ index: Int, _ column: String) throws -> String {
        guard case .string(let value) = try value(index, column).storage else { throw mismatch(index, column, "text") }
        return value
    }

    /// A TEXT column or NULL.
    func optionalText(_ index: Int, _ column: String) throws -> String? {
        if try value(index, column).isNull { return nil }
        return try text(index, column)
    }

    /// A BLOB column.
    func blob(_ index: Int, _ column: String) throws -> Data {
        guard case .blob(let value) = try value(index, column).storage else { throw mismatch(index, column, "a blob") }
        return value
    }

    /// A REAL column holding a date as seconds since Foundation's reference date (exact for a `Date`).
    func date(_ index: Int, _ column: String) throws -> Date {
        let seconds: Double
        switch try value(index, column).storage {
        case .double(let value): seconds = value
        case .int64(let value): seconds = Double(value)
        default: throw mismatch(index, column, "a time")
        }
        guard seconds.isFinite else { throw corrupt("\(column) is \(seconds), not a time") }
        return Date(timeIntervalSinceReferenceDate: seconds)
    }

    /// A REAL column holding a date, or NULL.
    func optionalDate(_ index: Int, _ column: String) throws -> Date? {
        if try value(index, column).isNull { return nil }
        return try date(index, column)
    }

    /// A job state.
    func state(_ index: Int, _ column: String) throws -> JournalJobState {
        let text = try text(index, column)
        guard let state = JournalJobState(rawValue: text) else { throw corrupt("\(column) is \"\(text)\", not a job state") }
        return state
    }

    private func value(_ index: Int, _ column: String) throws -> DatabaseValue {
        guard index >= 0, index < row.count else { throw corrupt("no column \(column)") }
        return row[index] as DatabaseValue
    }

    private func mismatch(_ index: Int, _ column: String, _ expected: String) -> JournalProblem {
        let found = switch (row[index] as DatabaseValue).storage {
        case .null: "NULL"
        case .int64: "an integer"
        case .double: "a real"
        case .string: "text"
        case .blob: "a blob"
        }
        return corrupt("\(column) holds \(found), not \(expected)")
    }

    /// A `.corrupt` problem in this row.
    func corrupt(_ reason: String) -> JournalProblem {
        JournalProblem(kind: .corrupt, reason: "\(subject.description): \(reason)")
    }
}
