import Glibc
import SqueezeIO
import ArgumentParser

/// The `squeeze` command: compress folders into standard gzip, alone or on a cluster. Run by
/// `SqueezeMain`.
struct Squeeze: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "squeeze",
        abstract: "Compress big folders fast into standard gzip, on one machine or a cluster.",
        usage: """
            squeeze <subcommand> [options]
            squeeze [-d|-t|-l] [-c] [-k] [-f] [-r] [-1..-9] [-p N] [FILE...]
            """,
        discussion: """
            Without a subcommand, squeeze takes gzip's and pigz's options: FILE is replaced by \
            FILE.gz (kept with -k, written to stdout with -c), -d decompresses (any gzip, several \
            members included), -t tests, -l lists, -1..-9 (--fast, --best) set the level, -p N the \
            threads, -r descends into folders, -n leaves out the name and time, -b N the block in \
            KiB, -S the suffix. With no FILE, stdin goes to stdout, so tar -I squeeze works both ways. \
            Each stream is one gzip member compressed in parallel blocks. Exit status: 0 when all \
            went well, 2 when a file failed or was skipped, 1 when nothing could run.
            """,
        version: "0.3.0",
        subcommands: [CompressCommand.self, DecompressCommand.self, TestCommand.self, IndexCommand.self, CoordinatorCommand.self, WorkerCommand.self, SubmitCommand.self, AttachCommand.self, StatusCommand.self, HealthCommand.self, KeygenCommand.self]
    )

    /// Parses the command line and runs its subcommand (or help, or the version).
    static func runCommand() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }
}
