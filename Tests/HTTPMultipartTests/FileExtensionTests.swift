import Foundation
import HTTPCore
import HTTPMultipart
import Testing

@Suite("Content types inferred from file names")
struct FileExtensionTests {
    @Test(
        "common extensions map to their media types",
        arguments: [
            ("photo.jpg", "image/jpeg"), ("PHOTO.JPEG", "image/jpeg"), ("icon.png", "image/png"),
            ("anim.gif", "image/gif"), ("pic.webp", "image/webp"), ("pic.heic", "image/heic"),
            ("logo.svg", "image/svg+xml"), ("song.mp3", "audio/mpeg"), ("voice.m4a", "audio/mp4"),
            ("sound.wav", "audio/wav"), ("track.flac", "audio/flac"), ("movie.mp4", "video/mp4"),
            ("clip.mov", "video/quicktime"), ("clip.webm", "video/webm"), ("doc.pdf", "application/pdf"),
            ("doc.docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"),
            ("sheet.xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"),
            ("a.zip", "application/zip"), ("a.tar.gz", "application/gzip"), ("a.tar", "application/x-tar"),
            ("a.7z", "application/x-7z-compressed"), ("notes.txt", "text/plain"), ("page.html", "text/html"),
            ("data.csv", "text/csv"), ("README.md", "text/markdown"), ("data.json", "application/json"),
            ("feed.xml", "application/xml"), ("conf.yaml", "application/yaml"),
        ])
    func known(filename: String, expected: String) {
        #expect(MediaType.inferred(forFilename: filename).description == expected)
    }

    @Test(
        "unknown or missing extensions give application/octet-stream",
        arguments: ["blob", "archive.unknownext", "trailingdot.", ".hidden", "dir.d/file", ""])
    func unknown(filename: String) {
        #expect(MediaType.inferred(forFilename: filename) == .octetStream)
    }

    @Test("a file part's filename and content type come from its URL unless given")
    func filePartInference() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = try directory.file("scan.pdf", Data("%PDF".utf8))
        var form = MultipartForm()
        try form.append(name: "a", fileAt: url)
        try form.append(name: "b", fileAt: url, filename: "other.png")
        try form.append(name: "c", fileAt: url, filename: "x.pdf", contentType: .json)
        let types = form.parts.map { $0.headerFields[.contentType] }
        let dispositions = form.parts.map { $0.headerFields[.contentDisposition] }
        #expect(types == ["application/pdf", "image/png", "application/json"])
        #expect(dispositions[0] == "form-data; name=\"a\"; filename=\"scan.pdf\"")
        #expect(dispositions[1] == "form-data; name=\"b\"; filename=\"other.png\"")
    }
}
