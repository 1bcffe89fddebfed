/// A value in a trace event's `args`.
enum TraceArgument: Encodable, Sendable, Equatable {
    case int(Int64)
    case number(Double)
    case text(String)

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .int(let value): try container.encode(value)
        case .number(let value): try container.encode(value.isFinite ? value : 0)
        case .text(let value): try container.encode(value)
        }
    }
}
