import Foundation
import HTTPCore
import HTTPMultipart
import Testing

/// The three outputs of one form, each built afresh (stream parts are one-shot).
struct Outputs {
    let memory: EncodedForm
    let memoryBytes: Data
    let disk: EncodedForm
    let diskBytes: Data
    let stream: EncodedForm
    let streamBytes: Data

    init(chunkSize: Int = MultipartForm.defaultChunkSize, _ make: () throws -> MultipartForm) async throws {
        memory = try await make().encodedInMemory()
        memoryBytes = try #require(memory.data)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        disk = try await make().encode(toFileAt: directory.url.appendingPathComponent("form.bin"), chunkSize: chunkSize)
        diskBytes = try Data(contentsOf: try #require(disk.fileURL))
        stream = try make().streamingBody(chunkSize: chunkSize)
        streamBytes = try await stream.body.collect(upTo: 1 << 30)
    }
}
