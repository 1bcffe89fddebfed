import SqueezeProtocol
import Testing

/// The digest a listing check compares: SipHash-2-4 as published, over a listing's entries,
/// moved by anything a scanner could leave out or change, and by nothing two honest hosts
/// may word differently.
@Suite("Listing digests")
struct ListingDigestTests {
    /// The reference key 00 01 … 0f.
    static let key0: UInt64 = 0x0706_0504_0302_0100
    static let key1: UInt64 = 0x0F0E_0D0C_0B0A_0908

    @Test("SipHash-2-4 gives the paper's outputs for messages 00 01 … of 0 to 63 bytes", arguments: [
        (0, 0x726F_DB47_DD0E_0E31 as UInt64), (1, 0x74F8_39C5_93DC_67FD), (7, 0xAB02_00F5_8B01_D137), (8, 0x93F5_F579_9A93_2462),
        (15, 0xA129_CA61_49BE_45E5), (63, 0x958A_324C_EB06_4572),
    ])
    func referenceVectors(length: Int, expected: UInt64) {
        var hasher = SipHash24(key0: Self.key0, key1: Self.key1)
        hasher.add(bytes: (0..<length).map { UInt8($0) })
        #expect(hasher.finalize() == expected)
        // Whole words where they fall on word boundaries hash as their bytes do.
        var words = SipHash24(key0: Self.key0, key1: Self.key1)
        for start in stride(from: 0, to: length - length % 8, by: 8) {
            words.add((0..<8).reduce(UInt64(0)) { $0 | UInt64(start + $1) << (8 * UInt64($1)) })
        }
        words.add(bytes: ((length - length % 8)..<length).map { UInt8($0) })
        #expect(words.finalize() == expected)
    }

    @Test("a string is its length, its bytes and zeros to a whole word, at any alignment", arguments: [0, 1, 5, 8, 13, 300])
    func strings(length: Int) {
        let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        for lead in [0, 3] {
            var fast = SipHash24(key0: 1, key1: 2)
            var slow = SipHash24(key0: 1, key1: 2)
            fast.add(bytes: [UInt8](repeating: 9, count: lead))
            slow.add(bytes: [UInt8](repeating: 9, count: lead))
            fast.add(string: bytes)
            fast.add(42)
            slow.add(bytes: (0..<8).map { UInt8(truncatingIfNeeded: UInt64(length) >> (8 * UInt64($0))) })
            slow.add(bytes: bytes)
            slow.add(bytes: [UInt8](repeating: 0, count: (8 - (lead + length) % 8) % 8))
            slow.add(bytes: [42, 0, 0, 0, 0, 0, 0, 0])
            #expect(fast.finalize() == slow.finalize())
        }
    }

    static func file(_ name: String, size: UInt64 = 10) -> BatchFile {
        BatchFile(relativePath: Array(name.utf8), size: size, modifiedSeconds: -5, modifiedNanoseconds: 6, inode: 7, permissions: 0o644)
    }

    static let report = ScanReport(jobID: 1, itemID: 2, attempt: 3, outcome: .listed, sections: [
        ScanSection(
            directory: Array("a".utf8), resumeAfter: Array("m".utf8), smallFiles: [file("b"), file("c")], largeFiles: [file("d", size: 1 << 30)],
            subdirectories: [Array("e".utf8)], notes: [ScanEntryNote(name: Array("f".utf8), failed: true, reason: "Permission denied")]),
        ScanSection(directory: Array("a/e".utf8), smallFiles: [file("g")]),
    ])

    @Test("what a scanner could leave out or change moves the digest")
    func sensitivity() {
        let digest = Self.report.listingDigest(key0: 1, key1: 2)
        var changes: [ScanReport] = []
        func changed(_ change: (inout ScanReport) -> Void) {
            var report = Self.report
            change(&report)
            changes.append(report)
        }
        changed { $0.sections[0].smallFiles.removeLast() }
        changed { $0.sections[0].largeFiles.removeAll() }
        changed { $0.sections[0].subdirectories.removeAll() }
        changed { $0.sections[0].notes.removeAll() }
        changed { $0.sections[0].notes[0].failed = false }
        changed { $0.sections[0].resumeAfter = Array("z".utf8) }
        changed { $0.sections[0].resumeAfter = [] }
        changed { $0.sections.removeLast() }
        changed { $0.sections[0].smallFiles[0].size += 1 }
        changed { $0.sections[0].smallFiles[0].modifiedNanoseconds += 1 }
        changed { $0.sections[0].smallFiles[0].inode += 1 }
        changed { $0.sections[0].smallFiles[0].permissions = 0o600 }
        // A small file named as large, and a name moved from one list to another.
        changed { $0.sections[0].largeFiles.insert($0.sections[0].smallFiles.removeFirst(), at: 0) }
        changed { $0.sections[0].subdirectories.append(Array("c".utf8)); $0.sections[0].smallFiles.removeLast() }
        changed { $0.outcome = .unreadable; $0.sections = [] }
        for report in changes { #expect(report.listingDigest(key0: 1, key1: 2) != digest) }
        #expect(Set(changes.map { $0.listingDigest(key0: 1, key1: 2) }).count == changes.count)
        #expect(Self.report.listingDigest(key0: 1, key1: 3) != digest, "another key, another digest")
    }

    @Test("ids, attempt, pieces and the reasons' words do not move it")
    func stability() {
        var other = Self.report
        other.jobID = 9
        other.itemID = 9
        other.attempt = 9
        other.sections[0].notes[0].reason = "Keine Berechtigung"
        other.result = RefResult(jobID: 9, itemID: 9, attempt: 9, pieces: [PieceReport(crc: 1, rawLength: 10, pieceLength: 30)])
        #expect(other.listingDigest(key0: 1, key1: 2) == Self.report.listingDigest(key0: 1, key1: 2))
    }
}
