import Foundation
import HTTPCore

extension HTTPRequest {
    /// This request with a `multipart/form-data` body built by `build`, streamed when sent
    /// (files read in chunks, never loaded whole), with its `Content-Type` and length.
    ///
    /// ```swift
    /// let request = HTTPRequest.post("upload").multipart { form in
    ///     form.append(name: "title", value: "Heron")
    ///     try form.append(name: "video", fileAt: videoURL)
    /// }
    /// ```
    /// - Parameters:
    ///   - boundary: The boundary; random by default.
    ///   - build: Appends the parts; what it throws (a ``MultipartError``), or else the form's
    ///     ``MultipartForm/pendingError``, is kept as the request's `pendingError`.
    /// - Returns: The request with the body, or this one with the error kept.
    public func multipart(
        boundary: MultipartBoundary = .random(), _ build: (inout MultipartForm) throws -> Void
    ) -> HTTPRequest {
        modified { request in
            var form = MultipartForm(boundary: boundary)
            try build(&form)
            if let error = form.pendingError { throw error }
            let encoded = form.streamingBody()
            request = request.body(encoded.body, contentType: encoded.contentType)
        }
    }

    /// This request with `value` as a streamed `multipart/form-data` body from the Codable
    /// encoder (`MultipartFile` properties read from disk when sent).
    /// - Parameters:
    ///   - value: A value that encodes a keyed container.
    ///   - encoder: The multipart encoder, with its options.
    /// - Returns: The request with the body, or this one with the error kept.
    public func multipart(
        _ value: some Encodable, encoder: MultipartFormEncoder = MultipartFormEncoder()
    ) -> HTTPRequest {
        modified { request in request = request.body(try encoder.encode(value).streamingBody()) }
    }

    /// This request with an encoded multipart form as its body, with its `Content-Type`
    /// (boundary included) and length.
    /// - Parameter form: A form encoded in memory, to disk or as a stream.
    /// - Returns: The request with the body.
    public func body(_ form: EncodedForm) -> HTTPRequest {
        body(form.body, contentType: form.contentType)
    }
}
