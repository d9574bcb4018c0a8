import Foundation
import HTTPCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What went wrong with a cookie jar's file or an imported list, naming the file or the line.
public enum CookieJarError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The jar's file exists but could not be read (permissions, a folder in its place).
    case unreadableFile(URL, reason: String)
    /// The jar's file is not a jar this library wrote (truncated, edited, another format):
    /// the jar started empty.
    case corruptFile(URL, reason: String)
    /// The jar could not be written (a full disk, a read-only folder); the file is unchanged.
    case unwritableFile(URL, reason: String)
    /// A line of a `cookies.txt` text that is not a cookie (1-based).
    case invalidLine(Int, reason: String)

    /// What went wrong, naming the file or line.
    public var description: String {
        switch self {
        case .unreadableFile(let url, let reason): return "cannot read the cookie file \(url.path): \(reason)"
        case .corruptFile(let url, let reason): return "the cookie file \(url.path) is not a cookie jar: \(reason)"
        case .unwritableFile(let url, let reason): return "cannot write the cookie file \(url.path): \(reason)"
        case .invalidLine(let line, let reason): return "line \(line) is not a cookie: \(reason)"
        }
    }
}

/// The file a ``CookieJar`` keeps its cookies in: JSON, written whole to a new file of mode
/// 0600 that then replaces the old one (so a crash leaves the old file or the new, never half of
/// one), a moment after the jar changes.
final class CookieFile: Sendable {
    let url: URL
    let persistsSessionCookies: Bool
    let onError: (@Sendable (CookieJarError) -> Void)?
    /// How long after a change the file is written: changes in that time are written together.
    static let delay: DispatchTimeInterval = .milliseconds(200)
    private let queue = DispatchQueue(label: "Heron.CookieFile")
    private let pending = Locked(false)

    init(url: URL, persistsSessionCookies: Bool, onError: (@Sendable (CookieJarError) -> Void)?) {
        self.url = url
        self.persistsSessionCookies = persistsSessionCookies
        self.onError = onError
    }

    /// The format of the file.
    private struct Contents: Codable {
        var version: Int
        var cookies: [Stored]
    }

    /// One cookie; times in seconds since 2001 (Foundation's reference date: the `Double` a
    /// `Date` holds, so they come back exactly).
    private struct Stored: Codable {
        var name: String
        var value: String
        var domain: String
        var hostOnly: Bool
        var path: String
        var secure: Bool
        var httpOnly: Bool
        var sameSite: String
        var expires: Double?
        var created: Double
        var lastAccessed: Double
    }

    /// The cookies in the file; none (and no error) when there is no file yet.
    func load() throws(CookieJarError) -> [Cookie] {
        let data: Data
        do {
            guard FileManager.default.fileExists(atPath: url.path) else { return [] }
            data = try Data(contentsOf: url)
        } catch {
            throw .unreadableFile(url, reason: "\(error.localizedDescription)")
        }
        let contents: Contents
        do {
            contents = try JSONDecoder().decode(Contents.self, from: data)
        } catch {
            throw .corruptFile(url, reason: "\(data.count) bytes that are not a cookie jar's JSON")
        }
        guard contents.version == 1 else { throw .corruptFile(url, reason: "version \(contents.version) is unknown") }
        return contents.cookies.map { stored in
            var cookie = Cookie(
                name: stored.name, value: stored.value, domain: stored.domain, hostOnly: stored.hostOnly,
                path: stored.path, secure: stored.secure, httpOnly: stored.httpOnly,
                sameSite: Self.sameSite(stored.sameSite),
                expires: stored.expires.map(Date.init(timeIntervalSinceReferenceDate:)),
                created: Date(timeIntervalSinceReferenceDate: stored.created))
            cookie.lastAccessed = Date(timeIntervalSinceReferenceDate: stored.lastAccessed)
            return cookie
        }
    }

    /// Writes `cookies` (session cookies only when asked) now.
    func write(_ cookies: [Cookie]) throws(CookieJarError) {
        let kept = persistsSessionCookies ? cookies : cookies.filter { !$0.isSession }
        let contents = Contents(
            version: 1,
            cookies: kept.map { cookie in
                Stored(
                    name: cookie.name, value: cookie.value, domain: cookie.domain, hostOnly: cookie.hostOnly,
                    path: cookie.path, secure: cookie.secure, httpOnly: cookie.httpOnly,
                    sameSite: cookie.sameSite.description, expires: cookie.expires?.timeIntervalSinceReferenceDate,
                    created: cookie.created.timeIntervalSinceReferenceDate,
                    lastAccessed: cookie.lastAccessed.timeIntervalSinceReferenceDate)
            })
        let data: Data
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            data = try encoder.encode(contents)
        } catch {
            throw .unwritableFile(url, reason: "\(error)")
        }
        try replaceFile(url, with: data)
    }

    /// Writes the jar's cookies a moment from now, once for every change made until then.
    func changed(snapshot: @escaping @Sendable () -> [Cookie]) {
        let first = pending.withLock { pending in
            defer { pending = true }
            return !pending
        }
        guard first else { return }
        queue.asyncAfter(deadline: .now() + Self.delay) { [self] in
            pending.withLock { $0 = false }
            do throws(CookieJarError) {
                try write(snapshot())
            } catch {
                onError?(error)
            }
        }
    }

    private static func sameSite(_ text: String) -> Cookie.SameSite {
        switch text {
        case "Strict": return .strict
        case "Lax": return .lax
        case "None": return .none
        default: return .default
        }
    }

}

/// Writes `data` to a new file beside `url`, mode 0600, flushed to disk, then renames it over
/// `url`: the old file stays whole until the new one is.
private func replaceFile(_ url: URL, with data: Data) throws(CookieJarError) {
    let folder = url.deletingLastPathComponent()
    let temporary = folder.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
    let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
    guard descriptor >= 0 else {
        throw .unwritableFile(url, reason: String(cString: strerror(errno)))
    }
    var failure: String?
    data.withUnsafeBytes { bytes in
        var offset = 0
        while offset < bytes.count, let base = bytes.baseAddress {
            let written = write(descriptor, base + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                failure = String(cString: strerror(errno))
                return
            }
            offset += written
        }
    }
    if failure == nil, fsync(descriptor) != 0 { failure = String(cString: strerror(errno)) }
    close(descriptor)
    if failure == nil, rename(temporary.path, url.path) != 0 { failure = String(cString: strerror(errno)) }
    if let failure {
        unlink(temporary.path)
        throw .unwritableFile(url, reason: failure)
    }
}
