import SqueezeIO
import ArgumentParser

/// The `squeeze` command: compress folders into standard gzip, alone or on a cluster.
@main
struct Squeeze: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "squeeze",
        abstract: "Compress big folders fast into standard gzip, on one machine or a cluster.",
        version: "0.3.0",
        subcommands: [CompressCommand.self, TestCommand.self, CoordinatorCommand.self, WorkerCommand.self, SubmitCommand.self, AttachCommand.self, StatusCommand.self, HealthCommand.self, KeygenCommand.self]
    )

    /// Tunes malloc before any command allocates its buffers.
    static func main() async {
        MemoryTuning.apply()
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
