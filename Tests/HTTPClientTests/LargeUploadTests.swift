import Foundation
import TestSupport
import Testing

/// A 1 GiB file uploaded through ``Client`` arrives intact with a bounded peak resident set,
/// sent as the body itself and as the file part of a streamed multipart form.
///
/// The upload runs in a child process, `HeronUploadProbe` (Tests/UploadProbe), not here:
/// every `URLSession` of a Linux process shares one work queue, which a 1 GiB upload holds
/// for seconds while the suite's other tests wait, and the peak resident set of a process
/// running hundreds of tests in parallel says nothing about one upload. The fault server
/// hashes what it receives and says how it was framed; `sha256sum` hashes what should have
/// arrived; the probe reports both its status and how far its peak resident set rose. The
/// probe's JSON reports are recorded as attachments (`swift test --attachments-path DIR`
/// keeps them).
///
/// The suite writes the file once (``LargeUploadFile``) and runs its tests one at a time, so
/// that two gibibyte uploads never compete for the machine's cores.
@Suite("Large uploads from a file, in a child process", .serialized, LargeUploadFile())
struct LargeUploadTests {
    /// The file's size: 1 GiB.
    static let size = 1 << 30
    /// The most the probe's peak resident set may rise while it uploads: 64 MiB.
    static let peakGrowthLimit = 64 << 20
    /// The probe's executable name (its target in Package.swift).
    static let probeName = "HeronUploadProbe"

    /// The file the suite's tests upload and the folder that holds it, set by
    /// ``LargeUploadFile`` around the suite.
    @TaskLocal static var upload: Upload?

    /// A 1 GiB file written for the suite, in a folder of its own.
    struct Upload: Sendable {
        /// The folder, removed after the suite; tests may write small files of their own here.
        let folder: URL
        /// The file of ``LargeUploadTests/size`` bytes (random bytes, written by a child process).
        let file: URL
    }

    @Test func oneGibibyteFileArrivesIntactWithPeakMemoryUnder64MiBAboveBaseline() async throws {
        let upload = try #require(Self.upload, "the suite's LargeUploadFile trait did not run")
        let expected = try await FileDigest.sha256(of: [upload.file])

        let report = try await Self.runProbe(upload.file, attachment: "upload-probe-report.json")
        #expect(report.status == 200)
        #expect(report.chunked == false)
        #expect(report.contentLength == Self.size)
        #expect(report.bytes == Self.size)
        #expect(report.sha256 == expected)
        #expect(
            report.peakRSSGrowth < Self.peakGrowthLimit,
            "peak RSS grew by \(report.peakRSSGrowth >> 20) MiB above a baseline of \(report.baselineRSS >> 20) MiB")
    }

    @Test("a 1 GiB file in a streamed multipart form arrives whole with its exact length, not chunked")
    func oneGibibyteFileInStreamedMultipartForm() async throws {
        let upload = try #require(Self.upload, "the suite's LargeUploadFile trait did not run")

        let report = try await Self.runProbe(
            upload.file, mode: "multipart", attachment: "multipart-upload-probe-report.json")
        let form = try #require(report.form, "\(Self.probeName) described no form")
        #expect(report.status == 200)
        #expect(form.prefix.count + Self.size + form.suffix.count == form.contentLength)
        #expect(report.chunked == false)
        #expect(report.contentLength == form.contentLength)
        #expect(report.bytes == form.contentLength)
        let prefix = upload.folder.appendingPathComponent("form-prefix.bin")
        let suffix = upload.folder.appendingPathComponent("form-suffix.bin")
        try form.prefix.write(to: prefix)
        try form.suffix.write(to: suffix)
        #expect(report.sha256 == (try await FileDigest.sha256(of: [prefix, upload.file, suffix])))
        #expect(
            report.peakRSSGrowth < Self.peakGrowthLimit,
            "peak RSS grew by \(report.peakRSSGrowth >> 20) MiB above a baseline of \(report.baselineRSS >> 20) MiB")
    }

    /// Runs the probe, which uploads `file` to the fault server in `mode` (`file` by default),
    /// records its report as an attachment named `attachment` and decodes it.
    private static func runProbe(
        _ file: URL, mode: String? = nil, attachment: String
    ) async throws
        -> UploadProbeReport
    {
        let faultServer = try TestServers.faultServer()
        let probe = try probeExecutable()
        let arguments = [file.path, faultServer.absoluteString] + (mode.map { [$0] } ?? [])
        let output = try await runGently(probe.path, arguments)
        let errors = String(decoding: output.standardError, as: UTF8.self)
        try #require(output.status == 0, "\(probeName) exited with \(output.status): \(errors)")
        Attachment.record(Array(output.standardOutput), named: attachment)
        return try JSONDecoder().decode(UploadProbeReport.self, from: output.standardOutput)
    }

    /// Runs a program found on the `PATH` (at the lower priority every ``ExternalProcess``
    /// gets): hashing and sending a gibibyte keeps a core busy for seconds, and the suite's
    /// timing-sensitive tests run meanwhile.
    private static func runGently(_ program: String, _ arguments: [String]) async throws -> ExternalProcess.Output {
        try await ExternalProcess.run("/usr/bin/env", [program] + arguments)
    }

    /// The probe's executable (see ``ProbeExecutable``).
    private static func probeExecutable() throws -> URL {
        let candidates = ProbeExecutable.candidates(probeName).map(\.path)
        return try #require(
            ProbeExecutable.find(probeName),
            "\(probeName) not found (looked at \(candidates)): build it with `swift build --build-tests`")
    }
}

/// Writes the 1 GiB file once, before the suite's tests, and removes it after them.
///
/// Writing the file takes seconds; sharing it keeps the suite's run time down.
struct LargeUploadFile: SuiteTrait, TestScoping {
    /// Runs the suite with ``LargeUploadTests/upload`` set to a fresh file.
    /// - Parameters:
    ///   - test: The suite.
    ///   - testCase: Nil: the trait is not recursive, so it scopes the suite as a whole.
    ///   - function: Runs the suite's tests.
    /// - Throws: What writing the file or the tests throw.
    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("heron-large-upload-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("upload.bin")
        // Written by a child process at the lowest priority: the suite starts with hundreds of
        // tests, some timing-sensitive, that must not wait for a gibibyte of disk writes.
        let script =
            "import os, sys\nblock = os.urandom(1 << 20)\nwith open(sys.argv[1], 'wb') as f:\n"
            + "    for i in range(int(sys.argv[2]) >> 20): f.write(block[i % 251:] + block[:i % 251])\n"
        let written = try await ExternalProcess.run(
            "/usr/bin/env", ["nice", "-n", "19", "python3", "-c", script, file.path, String(LargeUploadTests.size)])
        try #require(
            written.status == 0,
            "writing \(file.path) failed: \(String(decoding: written.standardError, as: UTF8.self))")
        try #require(
            try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int == LargeUploadTests.size)
        try await LargeUploadTests.$upload.withValue(
            LargeUploadTests.Upload(folder: folder, file: file), operation: function)
    }
}
