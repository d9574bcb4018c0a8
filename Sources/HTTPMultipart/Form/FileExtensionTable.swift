import HTTPCore

/// The built-in table of file name extensions and their media types (IANA registrations,
/// and the de facto types browsers send where none is registered).
enum FileExtensionTable {
    static let types: [String: MediaType] = {
        var table: [String: MediaType] = [:]
        for (type, extensions) in entries {
            guard let slash = type.firstIndex(of: "/"),
                let mediaType = try? MediaType(
                    type: String(type[..<slash]), subtype: String(type[type.index(after: slash)...]))
            else { continue }
            for ext in extensions.split(separator: " ") { table[String(ext)] = mediaType }
        }
        return table
    }()

    private static let entries: KeyValuePairs<String, String> = [
        // Images
        "image/jpeg": "jpg jpeg jpe jfif",
        "image/png": "png",
        "image/gif": "gif",
        "image/webp": "webp",
        "image/avif": "avif",
        "image/heic": "heic",
        "image/heif": "heif",
        "image/bmp": "bmp",
        "image/tiff": "tif tiff",
        "image/svg+xml": "svg svgz",
        "image/x-icon": "ico",
        "image/vnd.adobe.photoshop": "psd",
        // Audio
        "audio/mpeg": "mp3",
        "audio/mp4": "m4a",
        "audio/aac": "aac",
        "audio/ogg": "ogg oga opus",
        "audio/wav": "wav",
        "audio/flac": "flac",
        "audio/webm": "weba",
        "audio/midi": "mid midi",
        "audio/aiff": "aif aiff",
        // Video
        "video/mp4": "mp4 m4v",
        "video/quicktime": "mov qt",
        "video/webm": "webm",
        "video/x-matroska": "mkv",
        "video/x-msvideo": "avi",
        "video/mpeg": "mpeg mpg",
        "video/ogg": "ogv",
        "video/3gpp": "3gp",
        "video/mp2t": "ts",
        // Documents
        "application/pdf": "pdf",
        "application/msword": "doc",
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
        "application/vnd.ms-excel": "xls",
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx",
        "application/vnd.ms-powerpoint": "ppt",
        "application/vnd.openxmlformats-officedocument.presentationml.presentation": "pptx",
        "application/vnd.oasis.opendocument.text": "odt",
        "application/vnd.oasis.opendocument.spreadsheet": "ods",
        "application/vnd.oasis.opendocument.presentation": "odp",
        "application/rtf": "rtf",
        "application/epub+zip": "epub",
        // Archives
        "application/zip": "zip",
        "application/gzip": "gz tgz",
        "application/x-tar": "tar",
        "application/x-bzip2": "bz2",
        "application/x-xz": "xz",
        "application/zstd": "zst",
        "application/x-7z-compressed": "7z",
        "application/vnd.rar": "rar",
        // Text
        "text/plain": "txt text log",
        "text/html": "html htm",
        "text/css": "css",
        "text/csv": "csv",
        "text/markdown": "md markdown",
        "text/calendar": "ics",
        "text/vcard": "vcf",
        "text/javascript": "js mjs",
        // Data
        "application/json": "json",
        "application/ld+json": "jsonld",
        "application/geo+json": "geojson",
        "application/xml": "xml",
        "application/yaml": "yaml yml",
        "application/wasm": "wasm",
        "application/sql": "sql",
        // Fonts
        "font/woff": "woff",
        "font/woff2": "woff2",
        "font/ttf": "ttf",
        "font/otf": "otf",
    ]
}
