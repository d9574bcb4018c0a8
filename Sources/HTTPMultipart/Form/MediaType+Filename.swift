import HTTPCore

extension MediaType {
    /// The media type of a file, inferred from its name's extension.
    ///
    /// A built-in table covers common image, audio, video, document, archive, text and
    /// data types (`photo.JPG` → `image/jpeg`, `data.json` → `application/json`); an
    /// unknown or missing extension gives `application/octet-stream`. Extensions compare
    /// case-insensitively.
    ///
    /// ```swift
    /// print(MediaType.inferred(forFilename: "report.pdf"))  // application/pdf
    /// print(MediaType.inferred(forFilename: "blob"))        // application/octet-stream
    /// ```
    /// - Parameter filename: A file name or path.
    /// - Returns: The media type for its extension.
    public static func inferred(forFilename filename: String) -> MediaType {
        guard let dot = filename.lastIndex(of: "."), filename[dot...].count > 1 else { return .octetStream }
        let ext = filename[filename.index(after: dot)...].lowercased()
        guard !ext.contains("/"), let known = FileExtensionTable.types[ext] else { return .octetStream }
        return known
    }
}
