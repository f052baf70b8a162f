import Foundation
import Glibc

/// The process's own figures, from /proc/self (the names Prometheus's `process_` metrics use).
struct ProcessFigures {
    var residentBytes = 0
    var openFiles = 0
    var maxFiles = 0
    var cpuSeconds = 0.0

    static func read() -> ProcessFigures {
        var figures = ProcessFigures()
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        if let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) {
            let fields = statm.split(separator: " ")
            figures.residentBytes = (fields.count > 1 ? Int(fields[1]) ?? 0 : 0) * pageSize
        }
        // utime and stime are the 14th and 15th fields, counted after the command's closing parenthesis.
        if let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        {
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
            if fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) {
                figures.cpuSeconds = (user + system) / ticks
            }
        }
        figures.openFiles = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
        var limit = rlimit()
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 {
            figures.maxFiles = Int(limit.rlim_cur)
        }
        return figures
    }
}
