import Foundation

/// Reads `--http` endpoints the way their users do: `/metrics` through the Prometheus
/// project's own parser (Python's prometheus_client), JSON and pages over plain HTTP.
enum HTTPProbe {
    /// The `http://…/` base a process printed on stdout (`squeeze ROLE: http URL`), once it did.
    static func base(of process: BackgroundProcess, timeout: TimeInterval = 20) -> String? {
        guard process.waitForOutput(timeout: timeout, { $0.contains(": http http://") }) else { return nil }
        let line = process.stdout.split(separator: "\n").first { $0.contains(": http http://") } ?? ""
        return line.split(separator: " ").last.map(String.init)
    }

    /// Every sample of `url`'s metrics, parsed by prometheus_client, keyed `name{label="v",…}`
    /// (labels sorted); the `TYPE` of each family under `#type name`. Throws when the parser
    /// refuses the exposition.
    static func metrics(_ url: String) throws -> [String: Double] {
        let script = """
        import json, sys, urllib.request
        from prometheus_client.parser import text_string_to_metric_families
        text = urllib.request.urlopen(sys.argv[1], timeout=10).read().decode()
        out = {}
        for family in text_string_to_metric_families(text):
            out["#type " + family.name] = {"counter": 1, "gauge": 2, "histogram": 3}.get(family.type, 0)
            for s in family.samples:
                labels = ",".join('%s="%s"' % (k, v) for k, v in sorted(s.labels.items()))
                out[s.name + ("{" + labels + "}" if labels else "")] = s.value
        print(json.dumps(out))
        """
        let outcome = try ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", script, url], timeout: 30)
        guard outcome.status == 0 else { throw ProbeFailed(message: "metrics \(url): \(outcome.stderr)") }
        return try JSONDecoder().decode([String: Double].self, from: Data(outcome.stdout.utf8))
    }

    /// The body of `url`.
    static func get(_ url: String) throws -> Data {
        let script = "import sys, urllib.request; sys.stdout.buffer.write(urllib.request.urlopen(sys.argv[1], timeout=10).read())"
        let outcome = try ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", script, url], timeout: 30)
        guard outcome.status == 0 else { throw ProbeFailed(message: "GET \(url): \(outcome.stderr)") }
        return Data(outcome.stdout.utf8)
    }

    /// The first server-sent event of `url` named `event`, its data.
    static func firstEvent(_ url: String, named event: String) throws -> String {
        let script = """
        import sys, urllib.request
        stream = urllib.request.urlopen(sys.argv[1], timeout=10)
        name = None
        for raw in stream:
            line = raw.decode().rstrip("\\n")
            if line.startswith("event: "): name = line[7:]
            elif line.startswith("data: ") and name == sys.argv[2]:
                print(line[6:]); break
        """
        let outcome = try ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", script, url, event], timeout: 30)
        guard outcome.status == 0 else { throw ProbeFailed(message: "events \(url): \(outcome.stderr)") }
        return outcome.stdout
    }

    struct ProbeFailed: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }
}
