import Dispatch
import Glibc
import SqueezeIO

/// The process's entry point. A gzip-style command line (the drop-in) runs at once on the main
/// thread, synchronously: it is blocking work on threads of its own, and a small file's whole
/// run is a few milliseconds, so it does not start Swift concurrency's threads at all; so does
/// `compress` of one small file (`SmallFileJob`). Every other subcommand runs in Swift
/// concurrency, as an async `main` would: on the main actor, the process ending when it returns.
@main
enum SqueezeMain {
    static func main() {
        // Tunes malloc before any command allocates its buffers.
        MemoryTuning.apply()
        // The coordinator's threads take turns rather than compress side by side: few arenas
        // keep its freed memory in one place.
        if CommandLine.arguments.dropFirst().first == CoordinatorCommand.configuration.commandName {
            MemoryTuning.limitArenas(2)
        }
        let arguments = GzipHabits.rawArguments()
        let subcommands = Squeeze.configuration.subcommands.map { $0.configuration.commandName ?? "" }
        if GzipHabits.claims(arguments, subcommands: subcommands) {
            Glibc.exit(GzipHabits.run(arguments))
        }
        // A job of one small file is a few milliseconds of work, like the drop-in's: it too runs
        // here, without the cluster, before concurrency starts. Parsed as `compress` alone: the
        // whole command tree's reflection costs milliseconds. A command line the parser refuses
        // goes on to `runCommand`, which says why.
        if CommandLine.arguments.dropFirst().first == CompressCommand.configuration.commandName,
           let compress = try? CompressCommand.parse(Array(CommandLine.arguments.dropFirst(2))), let status = compress.runSmallFile() {
            Glibc.exit(status)
        }
        Task { @MainActor in
            await Squeeze.runCommand()
            Glibc.exit(0)
        }
        dispatchMain()
    }
}
