import Foundation
import Glibc

/// Reads the files flowd and flowctl are given (flows, configuration, keys, recordings) and, when one cannot be
/// read, says why in the operator's words: there is no such file (and where it was looked for), it is a
/// directory, or permission is denied (and for whom).
public enum FileReading {
    /// The file's bytes.
    /// - Parameter path: the file, absolute or relative to the working directory.
    /// - Throws: ``FileReadingError`` saying why it cannot be read.
    public static func data(_ path: String) throws(FileReadingError) -> Data {
        if let problem = problem(path) {
            throw FileReadingError(path: path, reason: problem)
        }
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw FileReadingError(path: path, reason: problem(path) ?? error.localizedDescription)
        }
    }

    /// Why `path` cannot be read as a file, or `nil` when it can (as far as the system says before reading).
    public static func problem(_ path: String) -> String? {
        var status = stat()
        if stat(path, &status) != 0 {
            let reason = errno
            switch reason {
            case ENOENT:
                let absolute = path.hasPrefix("/")
                return absolute
                    ? "there is no such file"
                    : "there is no such file in \(FileManager.default.currentDirectoryPath)"
            case EACCES:
                return "permission denied: a directory on the way cannot be searched by \(userName())"
            case ENOTDIR:
                return "a part of the path is not a directory"
            default:
                return String(cString: strerror(reason))
            }
        }
        if (status.st_mode & S_IFMT) == S_IFDIR {
            return "it is a directory, not a file"
        }
        if access(path, R_OK) != 0 {
            return "permission denied: \(userName()) may not read it (\(String(status.st_mode & 0o777, radix: 8)))"
        }
        return nil
    }

    private static func userName() -> String {
        if let entry = getpwuid(geteuid()), let name = entry.pointee.pw_name {
            return "user \(String(cString: name))"
        }
        return "user \(geteuid())"
    }
}

/// A file that cannot be read, and why.
public struct FileReadingError: Error, Sendable, CustomStringConvertible {
    /// The file as it was given.
    public let path: String
    /// Why it cannot be read, in words.
    public let reason: String

    /// `cannot read PATH: REASON`.
    public var description: String {
        "cannot read \(path): \(reason)"
    }
}
