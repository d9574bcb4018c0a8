import Foundation

/// Finds a test-only executable (an `executableTarget` a test target depends on, such as
/// `HeronUploadProbe`), which SwiftPM builds into the same folder as the test binary.
public enum ProbeExecutable {
    /// Where `name` may be: the test binary's folder and its parents (on macOS the test
    /// binary lies inside `HeronPackageTests.xctest/Contents/MacOS`), then the package's
    /// `.build/debug`, in that order.
    /// - Parameter name: The executable's name (its target's name).
    /// - Returns: The paths to try.
    public static func candidates(_ name: String) -> [URL] {
        var starts: [URL] = []
        if let executable = Bundle.main.executableURL { starts.append(executable.deletingLastPathComponent()) }
        starts += Bundle.allBundles.filter { $0.bundleURL.pathExtension == "xctest" }
            .map { $0.bundleURL.deletingLastPathComponent() }
        var candidates: [URL] = []
        for start in starts {
            var folder = start.resolvingSymlinksInPath()
            for _ in 0..<4 {
                candidates.append(folder.appendingPathComponent(name))
                folder.deleteLastPathComponent()
            }
        }
        candidates.append(SnippetSource.packageRoot.appendingPathComponent(".build/debug/\(name)"))
        return candidates
    }

    /// The first of ``candidates(_:)`` that is an executable file, or `nil`.
    /// - Parameter name: The executable's name.
    /// - Returns: Its URL, if built.
    public static func find(_ name: String) -> URL? {
        candidates(name).first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }
}
