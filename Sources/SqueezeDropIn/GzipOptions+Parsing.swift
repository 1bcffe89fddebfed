import SqueezeIO

extension GzipOptions {
    /// The most compressing threads `-p` takes.
    public static let threadLimit = 1...1024
    /// The block sizes `-b` takes, in KiB (pigz's floor; a ceiling that bounds memory).
    public static let blockKiBLimit = 32...65_536

    /// Parses a command line the way gzip and pigz do: short options cluster (`-dc9`), a short
    /// option's value may follow it or be the next argument (`-p4`, `-p 4`), long options take
    /// `--name=value` or `--name value`, `--` ends the options and `-` is standard input.
    /// Options hand-parsed rather than through swift-argument-parser, which has no digit flags
    /// (`-9`) and no clusters mixing flags and digits.
    /// - Throws: `GzipUsageError` for an unknown option, a missing or out-of-range value.
    public static func parse(_ arguments: [[UInt8]]) throws(GzipUsageError) -> GzipOptions {
        var options = GzipOptions()
        var index = 0
        var onlyFiles = false
        func value(for name: String, attached: [UInt8]) throws(GzipUsageError) -> [UInt8] {
            if !attached.isEmpty { return attached }
            index += 1
            guard index < arguments.count else { throw GzipUsageError("option \(name) requires a value") }
            return arguments[index]
        }
        while index < arguments.count {
            let argument = arguments[index]
            let dash = UInt8(ascii: "-")
            if onlyFiles || argument.first != dash || argument.count == 1 {
                options.files.append(BytePath(bytes: argument))
            } else if argument == [dash, dash] {
                onlyFiles = true
            } else if argument.starts(with: [dash, dash]) {
                let body = argument.dropFirst(2)
                let equals = body.firstIndex(of: UInt8(ascii: "="))
                let name = String(decoding: body[..<(equals ?? body.endIndex)], as: UTF8.self)
                let attached = equals.map { Array(body[body.index(after: $0)...]) }
                try options.applyLong(name, attached: attached) { () throws(GzipUsageError) in
                    try value(for: "--\(name)", attached: [])
                }
            } else {
                var position = argument.index(after: argument.startIndex)
                while position < argument.endIndex {
                    let letter = argument[position]
                    position = argument.index(after: position)
                    if try options.applyShort(letter) { continue }
                    let rest = Array(argument[position...])
                    let text = String(decoding: try value(for: "-\(Character(Unicode.Scalar(letter)))", attached: rest), as: UTF8.self)
                    try options.applyValued(letter, text)
                    position = argument.endIndex
                }
            }
            index += 1
        }
        return options
    }

    /// Applies a short option without a value; false when `letter` takes one (p, b, S).
    private mutating func applyShort(_ letter: UInt8) throws(GzipUsageError) -> Bool {
        switch Character(Unicode.Scalar(letter)) {
        case "0"..."9": level = Int(letter - UInt8(ascii: "0"))
        case "d": mode = .decompress
        case "t": mode = .test
        case "l": mode = .list
        case "h": mode = .help
        case "V", "L": mode = .version
        case "c": toStandardOutput = true
        case "k": keep = true
        case "f": force = true
        case "r": recursive = true
        case "q": quiet = true; verbose = false
        case "v": verbose = true; quiet = false
        case "n": storeName = false
        case "N": storeName = true
        case "p", "b", "S": return false
        default:
            let shown = letter >= 0x21 && letter < 0x7f ? String(Unicode.Scalar(letter)) : "\\x" + String(letter, radix: 16)
            throw GzipUsageError("invalid option -- '\(shown)'")
        }
        return true
    }

    /// Applies `-p`, `-b` or `-S` with its value.
    private mutating func applyValued(_ letter: UInt8, _ text: String) throws(GzipUsageError) {
        switch Character(Unicode.Scalar(letter)) {
        case "p": threads = try Self.number(text, option: "-p", within: Self.threadLimit)
        case "b": blockKiB = try Self.number(text, option: "-b", within: Self.blockKiBLimit)
        default:
            guard !text.isEmpty, !text.utf8.contains(UInt8(ascii: "/")) else {
                throw GzipUsageError("invalid suffix '\(text)'")
            }
            suffix = Array(text.utf8)
        }
    }

    /// Applies a long option; `next` takes the following argument as its value.
    private mutating func applyLong(_ name: String, attached: [UInt8]?, next: () throws(GzipUsageError) -> [UInt8]) throws(GzipUsageError) {
        let flags: [String: UInt8] = [
            "decompress": "d", "uncompress": "d", "test": "t", "list": "l", "help": "h", "version": "V",
            "license": "L", "stdout": "c", "to-stdout": "c", "keep": "k", "force": "f", "recursive": "r",
            "quiet": "q", "silent": "q", "verbose": "v", "no-name": "n", "name": "N", "fast": "1", "best": "9",
        ].mapValues { UInt8(ascii: $0) }
        let valued: [String: UInt8] = ["processes": "p", "blocksize": "b", "suffix": "S"].mapValues { UInt8(ascii: $0) }
        if let letter = flags[name] {
            guard attached == nil else { throw GzipUsageError("option '--\(name)' doesn't allow an argument") }
            _ = try applyShort(letter)
        } else if let letter = valued[name] {
            let bytes: [UInt8]
            if let attached { bytes = attached } else { bytes = try next() }
            let text = String(decoding: bytes, as: UTF8.self)
            try applyValued(letter, text)
        } else {
            throw GzipUsageError("unrecognized option '--\(name)'")
        }
    }

    private static func number(_ text: String, option: String, within range: ClosedRange<Int>) throws(GzipUsageError) -> Int {
        guard let number = Int(text), range.contains(number) else {
            throw GzipUsageError("\(option) \(text): must be a number in \(range.lowerBound)-\(range.upperBound)")
        }
        return number
    }
}
