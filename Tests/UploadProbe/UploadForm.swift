import Foundation
import HTTPMultipart

/// The multipart form `HeronUploadProbe` sends in `multipart` mode: a text field, then the
/// file as a file part, under a fixed boundary.
///
/// The fixed boundary makes the form's bytes reproducible, so the bytes it sends around the
/// file's content can be found without restating the multipart format: ``framing()`` encodes
/// in memory the same form holding a short marker instead of the file, and splits it there.
///
/// ```swift
/// let encoded = try UploadForm.holding(fileAt: file).streamingBody()
/// let (prefix, suffix) = try await UploadForm.framing()
/// // encoded's bytes are prefix, then the file, then suffix.
/// ```
enum UploadForm {
    /// A failure to find the file's place in the form.
    struct Failure: Error, CustomStringConvertible {
        /// What went wrong.
        let description: String
    }

    /// The boundary of both forms.
    static let boundary = "heron-upload-probe-boundary"
    /// The text field's name.
    static let fieldName = "note"
    /// The text field's value.
    static let fieldValue = "one gibibyte, streamed"
    /// The file part's field name.
    static let partName = "file"
    /// The filename the file part carries.
    static let filename = "upload.bin"

    /// The form with the file at `url` as its file part, read only when the body is sent.
    /// - Parameter url: A `file:` URL of a regular file.
    /// - Returns: The form.
    /// - Throws: ``MultipartError`` when the file cannot be read.
    static func holding(fileAt url: URL) throws(MultipartError) -> MultipartForm {
        try form { form throws(MultipartError) in
            try form.append(name: partName, fileAt: url, filename: filename, contentType: .octetStream)
        }
    }

    /// The bytes the form of ``holding(fileAt:)`` sends before and after the file's content.
    ///
    /// Encodes in memory the same form (same boundary, field and part header fields) holding
    /// a unique marker in place of the file, and splits the bytes around the marker.
    /// - Returns: The bytes before the file's content and the bytes after it.
    /// - Throws: ``MultipartError`` when the form cannot be encoded; ``Failure`` when the
    ///   marker does not occur exactly once in it.
    static func framing() async throws -> (prefix: Data, suffix: Data) {
        let marker = Data("<heron-upload-probe-marker \(UUID().uuidString)>".utf8)
        let encoded = try await form { form throws(MultipartError) in
            form.append(name: partName, data: marker, filename: filename, contentType: .octetStream)
        }.encodedInMemory()
        guard let bytes = encoded.data, let place = bytes.range(of: marker),
            bytes[place.upperBound...].range(of: marker) == nil
        else {
            throw Failure(description: "the marker does not occur exactly once in the form encoded in memory")
        }
        return (Data(bytes[..<place.lowerBound]), Data(bytes[place.upperBound...]))
    }

    /// The form: the text field, then the file part that `appendFile` appends.
    private static func form(
        appendingFile appendFile: (inout MultipartForm) throws(MultipartError) -> Void
    ) throws(MultipartError) -> MultipartForm {
        var form = MultipartForm(boundary: try MultipartBoundary(boundary))
        form.append(name: fieldName, value: fieldValue)
        try appendFile(&form)
        return form
    }
}
