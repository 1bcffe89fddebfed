import Foundation
import Logging

/// Logging to stderr through swift-log; the level comes from `SQUEEZE_LOG_LEVEL`.
enum LogSetup {
    static func bootstrap(defaultLevel: Logger.Level) {
        let level = ProcessInfo.processInfo.environment["SQUEEZE_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? defaultLevel
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }
}
