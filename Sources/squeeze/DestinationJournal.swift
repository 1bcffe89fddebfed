import ArgumentParser
import Foundation
import Glibc
import SqueezeCoordinator
import SqueezeJournal
import SqueezeProtocol

/// The journal `squeeze compress` keeps in its destination while the job runs
/// (`DEST/.squeeze-journal.sqlite`): what was asked and every output published, so that the same
/// command with `--resume` finishes a run that was killed, interrupted or had failures. Removed
/// when a job completes without a failure, so a finished DEST holds only outputs.
///
/// Blocking (stat, mkdir, SQLite): `open` and `end` run off the cooperative pool.
final class DestinationJournal: Sendable {
    /// The open journal, handed to the in-process coordinator.
    let journal: Journal
    /// The earlier run `--resume` finishes; nil for a new run.
    let earlier: JournalJob?
    /// The destination as the user named it (or its default), for messages.
    let destination: String
    /// Whether opening made the destination folder: a job refused before it starts removes it again.
    private let madeDestination: Bool

    private init(journal: Journal, earlier: JournalJob?, destination: String, madeDestination: Bool) {
        self.journal = journal
        self.earlier = earlier
        self.destination = destination
        self.madeDestination = madeDestination
    }

    /// The journal for `request` in its destination, or nil when there is none to keep: the source
    /// does not exist or the destination cannot be a folder (the coordinator then refuses the job
    /// with its own message). Refuses, with one line on stderr and exit status 1: an earlier run's
    /// journal without `resume` or `force`; with `resume`, an earlier run with other settings; a
    /// journal that is locked, damaged or from a newer squeeze (never started over silently).
    /// `force` removes an earlier journal and starts a new run.
    static func open(for request: JobRequest, defaultBlockSize: Int, resume: Bool, force: Bool) throws -> DestinationJournal? {
        guard Self.exists(request.source) else { return nil }
        let destination = request.destinationPath
        let path = Self.path(in: destination)
        if Self.exists(path) {
            if force {
                do {
                    try Journal.remove(at: path)
                } catch {
                    throw CommandFailure.exit("\(error)")
                }
            } else if !resume {
                throw CommandFailure.exit(
                    "\(destination) holds the journal of an unfinished run (\(Journal.destinationFileName)): add --resume to finish it, or --force to start over")
            } else {
                let journal = try openJournal(path)
                do {
                    guard let earlier = try journal.recentJobs(limit: 1).first else {
                        return DestinationJournal(journal: journal, earlier: nil, destination: destination, madeDestination: false)
                    }
                    try Self.check(request, against: earlier, defaultBlockSize: defaultBlockSize, destination: destination)
                    return DestinationJournal(journal: journal, earlier: earlier, destination: destination, madeDestination: false)
                } catch {
                    journal.close()
                    throw (error as? ExitCode) ?? CommandFailure.exit("\(error)")
                }
            }
        } else if resume {
            FileHandle.standardError.write(Data("squeeze: \(destination) has no journal of an earlier run: compressing from the start\n".utf8))
        }
        var made = false
        if !Self.exists(destination) {
            guard (try? FileManager.default.createDirectory(atPath: destination, withIntermediateDirectories: true)) != nil else { return nil }
            made = true
        }
        var info = stat()
        guard stat(destination, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { return nil }
        return DestinationJournal(journal: try openJournal(path), earlier: nil, destination: destination, madeDestination: made)
    }

    /// Where a run into `destination` keeps its journal.
    static func path(in destination: String) -> String {
        (destination.hasSuffix("/") ? destination : destination + "/") + Journal.destinationFileName
    }

    /// Ends the run's journal once the job has ended (`outcome`, as `ExitStatus.finish` takes it).
    /// Removed after a job that completed with nothing `--resume` could finish: no failure, or only
    /// outputs that existed before (a resume refuses those too, so keeping it would only block the
    /// next plain run). Removed too, with the destination when opening made it, after a job refused
    /// before it started. Kept otherwise (interrupted, failed, files that may succeed on a second
    /// try), with a line on stderr saying how to finish the run.
    func end(after outcome: Result<JobSummary?, any Error>) {
        switch outcome {
        case .success(let summary?) where summary.state == .completed && summary.failed.allSatisfy({ $0.outputExists == true }):
            remove()
        case .failure where earlier == nil:
            remove()
            if madeDestination { _ = rmdir(destination) }
        default:
            journal.close()
            let line = "squeeze: \(destination) keeps this run's journal (\(Journal.destinationFileName)): run the same command with --resume to finish it\n"
            FileHandle.standardError.write(Data(line.utf8))
        }
    }

    private func remove() {
        do {
            try journal.closeAndRemove()
        } catch {
            FileHandle.standardError.write(Data("squeeze: warning: \(error)\n".utf8))
        }
    }

    private static func openJournal(_ path: String) throws -> Journal {
        do {
            return try Journal(path: path)
        } catch {
            throw CommandFailure.exit("\(error)")
        }
    }

    /// Refuses to finish `earlier` with settings that would make its outputs differ from the new ones.
    private static func check(_ request: JobRequest, against earlier: JournalJob, defaultBlockSize: Int, destination: String) throws {
        guard let asked = try? JSONDecoder().decode(JobRequest.self, from: earlier.request) else {
            throw CommandFailure.exit("\(destination)/\(Journal.destinationFileName): the earlier run's request cannot be read; --force starts over")
        }
        let before = OutputSettings(asked, defaultBlockSize: defaultBlockSize), now = OutputSettings(request, defaultBlockSize: defaultBlockSize)
        guard before == now else {
            throw CommandFailure.exit(
                "the unfinished run in \(destination) used \(before); this command asks \(now): repeat its options to finish it, or --force to start over")
        }
    }

    private static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }
}
