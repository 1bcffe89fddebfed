import ArgumentParser
import Foundation
import Glibc
import SqueezeDropIn

/// `squeeze` without a subcommand: gzip's and pigz's command line (`GzipTool`). Decides which
/// front end an invocation is for, and runs the gzip one.
enum GzipHabits {
    /// swift-argument-parser's own root options, which keep going to it (help, version,
    /// completion scripts and the manual's help dump).
    private static let parserOptions = ["--help", "--version", "--generate-completion-script", "--experimental-dump-help"]

    /// The arguments after the program name, as raw bytes: a file name need not be UTF-8.
    static func rawArguments() -> [[UInt8]] {
        (1..<Int(CommandLine.argc)).map { index in
            guard let argument = CommandLine.unsafeArgv[index] else { return [] }
            return Array(UnsafeRawBufferPointer(start: argument, count: strlen(argument)))
        }
    }

    /// Whether `arguments` are a gzip-style command line rather than a subcommand's.
    static func claims(_ arguments: [[UInt8]], subcommands: [String]) -> Bool {
        guard let first = arguments.first.map({ String(decoding: $0, as: UTF8.self) }) else { return true }
        if subcommands.contains(first) || first == "help" { return false }
        return !parserOptions.contains { first == $0 || first.hasPrefix($0 + "=") } && !first.hasPrefix("--experimental")
    }

    /// Parses and runs a gzip-style command line; the process's exit status. Blocks: only the
    /// main thread calls it, before Swift concurrency starts (`SqueezeMain`).
    static func run(_ arguments: [[UInt8]]) -> Int32 {
        let options: GzipOptions
        do {
            options = try GzipOptions.parse(arguments)
        } catch {
            FileHandle.standardError.write(Data("squeeze: \(error.message)\nFor help, type: squeeze -h\n".utf8))
            return 1
        }
        switch options.mode {
        case .help:
            print(Squeeze.helpMessage())
            return 0
        case .version:
            print("squeeze \(Squeeze.configuration.version)")
            return 0
        default:
            let tool = GzipTool(options: options, inputIsTerminal: isatty(0) == 1, outputIsTerminal: isatty(1) == 1,
                                cores: ProcessInfo.processInfo.activeProcessorCount)
            return tool.run()
        }
    }
}
