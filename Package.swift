// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Squeeze",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "squeeze", targets: ["squeeze"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        // For NIOConcurrencyHelpers only (a pthread mutex, which Thread Sanitizer understands).
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
        // SQLite, for the coordinator's job journal (links the system libsqlite3 on Linux).
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // Metrics: the API the coordinator and workers count through, and its Prometheus backend.
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // The HTTP server of --http: metrics, the live page and its events.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    ],
    targets: [
        // libzmq's header, and wrappers that load the library on first use (dlopen): a command
        // that opens no socket does not pay for loading it and its dependencies.
        .target(name: "CZeroMQ"),
        // C shims, found through pkg-config.
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // libdeflate's headers only: SqueezeGzip links the library (statically on Linux).
        .systemLibrary(
            name: "CLibDeflate",
            providers: [.apt(["libdeflate-dev"])]
        ),
        .systemLibrary(
            name: "CISAL",
            pkgConfig: "libisal",
            providers: [.apt(["libisal-dev"])]
        ),
        // Walks raw deflate block structure (to continue a libdeflate stream in one member).
        .target(name: "CSqueezeDeflate"),
        // CRC-32 folded 256 bits at a time where the CPU can (AVX2 and VPCLMULQDQ).
        .target(name: "CSqueezeCRC"),
        // Linux calls Swift's Glibc module does not declare (syncfs needs _GNU_SOURCE).
        .target(name: "CSqueezeSystem"),
        // Threads the project owns for blocking disk I/O, and the file operations run on them.
        .target(
            name: "SqueezeIO",
            dependencies: ["CSqueezeSystem", .product(name: "DequeModule", package: "swift-collections"), .product(name: "NIOConcurrencyHelpers", package: "swift-nio")]
        ),
        // A safe libzmq wrapper: sockets owned by I/O threads, bridged into async code.
        .target(
            name: "SqueezeZMQ",
            dependencies: ["CZeroMQ", "CSqueezeSystem", .product(name: "DequeModule", package: "swift-collections"), .product(name: "NIOConcurrencyHelpers", package: "swift-nio")]
        ),
        // The gzip engine: zlib, libdeflate and ISA-L behind one block protocol, and pigz-style
        // single gzip members built from independently compressed blocks.
        // Streams are compressed on threads of their own (`DeflateThreads`).
        .target(
            name: "SqueezeGzip",
            dependencies: [
                "CZlib", "CLibDeflate", "CISAL", "CSqueezeDeflate", "CSqueezeCRC",
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            // Debian's libdeflate.a (libdeflate-dev), the same release as its shared library,
            // compresses 1.2 times as fast at level 6 and 1.5 at level 9 (measured: docs/benchmarks.md,
            // "The engine"); `-l:` names the archive itself.
            linkerSettings: [
                .linkedLibrary(":libdeflate.a", .when(platforms: [.linux])),
                .linkedLibrary("deflate", .when(platforms: [.macOS])),
            ]
        ),
        // The tar format (pax): headers, and a tree laid out as one stream read in any range.
        .target(name: "SqueezeArchive", dependencies: ["SqueezeIO"]),
        // squeeze as a drop-in for gzip and pigz: their options, files in place, stdin to stdout.
        .target(name: "SqueezeDropIn", dependencies: ["SqueezeGzip", "SqueezeIO", .product(name: "NIOConcurrencyHelpers", package: "swift-nio")]),
        // Wire protocol v2: header frame, bodies and payload frames; and what a `scan` lists
        // (SqueezeIO), which the scanner and whoever checks its listing read alike.
        // Frames are `ZMQFrame`s, so bulk payloads go out and come in without a copy.
        .target(name: "SqueezeProtocol", dependencies: ["SqueezeGzip", "SqueezeZMQ", "SqueezeIO"]),
        // The coordinator actor: scanning, planning, dispatch against credit, assembly.
        .target(
            name: "SqueezeCoordinator",
            dependencies: [
                "SqueezeIO", "SqueezeZMQ", "SqueezeGzip", "SqueezeProtocol", "SqueezeJournal", "SqueezeArchive",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        // The worker: compresses blocks in a task group bounded by its slots.
        .target(
            name: "SqueezeWorker",
            dependencies: [
                "SqueezeIO", "SqueezeZMQ", "SqueezeGzip", "SqueezeProtocol",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        // What an operator sees: Prometheus metrics, the coordinator's live page and its JSON,
        // served over HTTP (--http); and the trace-event files of --trace.
        .target(
            name: "SqueezeObservability",
            dependencies: [
                "SqueezeProtocol",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The client side of the cluster protocol: submit, follow, cancel, status.
        .target(
            name: "SqueezeClient",
            dependencies: [
                "SqueezeZMQ", "SqueezeProtocol",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        // The coordinator's durable job journal: jobs and published outputs in SQLite, under a flock.
        .target(
            name: "SqueezeJournal",
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        // The command-line front end.
        .executableTarget(
            name: "squeeze",
            dependencies: [
                "SqueezeCoordinator", "SqueezeWorker", "SqueezeClient", "SqueezeZMQ", "SqueezeProtocol", "SqueezeIO", "SqueezeGzip", "SqueezeJournal", "SqueezeDropIn", "SqueezeObservability",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        .testTarget(name: "SqueezeGzipTests", dependencies: ["SqueezeGzip", "CSqueezeDeflate"]),
        .testTarget(name: "SqueezeZMQTests", dependencies: ["SqueezeZMQ", .product(name: "NIOConcurrencyHelpers", package: "swift-nio")]),
        .testTarget(name: "SqueezeProtocolTests", dependencies: ["SqueezeProtocol", "SqueezeGzip", "SqueezeZMQ"]),
        .testTarget(
            name: "SqueezeCoordinatorTests",
            dependencies: [
                "SqueezeCoordinator", "SqueezeIO", "SqueezeGzip", "SqueezeWorker", "SqueezeZMQ", "SqueezeProtocol", "SqueezeJournal",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(name: "SqueezeWorkerTests", dependencies: ["SqueezeWorker", "SqueezeProtocol", "SqueezeGzip", "SqueezeIO"]),
        .testTarget(name: "SqueezeArchiveTests", dependencies: ["SqueezeArchive", "SqueezeIO"]),
        .testTarget(name: "SqueezeDropInTests", dependencies: ["SqueezeDropIn", "SqueezeIO"]),
        .testTarget(name: "SqueezeJournalTests", dependencies: ["SqueezeJournal", .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(name: "SqueezeObservabilityTests", dependencies: ["SqueezeObservability", "SqueezeProtocol", .product(name: "Metrics", package: "swift-metrics"), .product(name: "Prometheus", package: "swift-prometheus")]),
        .testTarget(name: "IntegrationTests", dependencies: ["SqueezeIO", "SqueezeProtocol", "SqueezeZMQ"]),
    ],
    swiftLanguageModes: [.v6]
)
