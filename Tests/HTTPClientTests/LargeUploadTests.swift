import Foundation
import TestSupport
import Testing

/// A 1 GiB file uploaded through ``Client`` arrives intact with a bounded peak resident set.
///
/// The upload runs in a child process, `HeronUploadProbe` (Tests/UploadProbe), not here:
/// every `URLSession` of a Linux process shares one work queue, which a 1 GiB upload holds
/// for seconds while the suite's other tests wait, and the peak resident set of a process
/// running hundreds of tests in parallel says nothing about one upload. The fault server
/// hashes what it receives; `sha256sum` hashes the file; the probe reports both its status
/// and how far its peak resident set rose. The probe's JSON report is recorded as an
/// attachment (`swift test --attachments-path DIR` keeps it).
@Suite("Large upload from a file, in a child process")
struct LargeUploadTests {
    /// The file's size: 1 GiB.
    static let size = 1 << 30
    /// The most the probe's peak resident set may rise while it uploads: 64 MiB.
    static let peakGrowthLimit = 64 << 20
    /// The probe's executable name (its target in Package.swift).
    static let probeName = "HeronUploadProbe"

    @Test func oneGibibyteFileArrivesIntactWithPeakMemoryUnder64MiBAboveBaseline() async throws {
        let faultServer = try TestServers.faultServer()
        let probe = try Self.probeExecutable()
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("heron-large-upload-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("upload.bin")
        try await TransportFixture.offThePool { try PatternFile.write(to: file, size: Self.size) }
        let expected = try await Self.sha256(of: file)

        let output = try await Self.runGently(probe.path, [file.path, faultServer.absoluteString])
        let errors = String(decoding: output.standardError, as: UTF8.self)
        try #require(output.status == 0, "\(Self.probeName) exited with \(output.status): \(errors)")
        Attachment.record(Array(output.standardOutput), named: "upload-probe-report.json")
        let report = try JSONDecoder().decode(UploadProbeReport.self, from: output.standardOutput)
        #expect(report.status == 200)
        #expect(report.bytes == Self.size)
        #expect(report.sha256 == expected)
        #expect(
            report.peakRSSGrowth < Self.peakGrowthLimit,
            "peak RSS grew by \(report.peakRSSGrowth >> 20) MiB above a baseline of \(report.baselineRSS >> 20) MiB")
    }

    /// The SHA-256 of the file at `url` in lowercase hex, from `sha256sum`.
    private static func sha256(of url: URL) async throws -> String {
        let output = try await runGently("/usr/bin/env", ["sha256sum", url.path])
        try #require(output.status == 0, "sha256sum failed: \(String(decoding: output.standardError, as: UTF8.self))")
        let digest = String(decoding: output.standardOutput.prefix(64), as: UTF8.self)
        try #require(digest.count == 64 && digest.allSatisfy(\.isHexDigit), "sha256sum printed \(digest)")
        return digest
    }

    /// Runs a program at a lower CPU priority (`nice -n 10`): hashing and sending a gibibyte
    /// keeps a core busy for seconds, and the suite's timing-sensitive tests run meanwhile.
    private static func runGently(_ program: String, _ arguments: [String]) async throws -> ExternalProcess.Output {
        try await ExternalProcess.run("/usr/bin/env", ["nice", "-n", "10", program] + arguments)
    }

    /// The probe's executable, which SwiftPM builds into the same folder as this test
    /// binary (a dependency of the test target): that folder is searched first, then its
    /// parents (on macOS the test binary lies inside `HeronPackageTests.xctest/Contents/MacOS`),
    /// then the package's `.build/debug`.
    private static func probeExecutable() throws -> URL {
        var starts: [URL] = []
        if let executable = Bundle.main.executableURL { starts.append(executable.deletingLastPathComponent()) }
        starts += Bundle.allBundles.filter { $0.bundleURL.pathExtension == "xctest" }
            .map { $0.bundleURL.deletingLastPathComponent() }
        var candidates: [URL] = []
        for start in starts {
            var folder = start.resolvingSymlinksInPath()
            for _ in 0..<4 {
                candidates.append(folder.appendingPathComponent(probeName))
                folder.deleteLastPathComponent()
            }
        }
        candidates.append(SnippetSource.packageRoot.appendingPathComponent(".build/debug/\(probeName)"))
        let found = candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
        return try #require(
            found,
            "\(probeName) not found (looked at \(candidates.map(\.path))): build it with `swift build --build-tests`")
    }
}
