import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A loopback nginx started for the benchmark: `GET /small` answers 2 bytes,
/// `POST /upload` reads and discards any body (chunked or not) and answers 2 bytes, and
/// `GET /cached` answers 2 bytes with `Cache-Control: max-age=3600` (the cache benchmark's), and
/// `/files/NAME` serves the files put in ``filesFolder`` (with `ETag`, `Range` and `If-Range`).
///
/// nginx is far faster than httpbin, so the client, not the server, is what is measured.
/// Install it with `apt-get install -y nginx`; without it the benchmark falls back to
/// httpbin (`HERON_HTTPBIN_URL`), whose figures are much lower.
final class LoopbackServer {
    let baseURL: URL
    /// The folder `/files/` serves.
    var filesFolder: URL { directory.appendingPathComponent("files") }
    private let process: Process
    private let directory: URL

    init?() {
        guard
            let nginx = ["/usr/sbin/nginx", "/usr/bin/nginx", "/usr/local/sbin/nginx"].first(where: {
                FileManager.default.isExecutableFile(atPath: $0)
            })
        else { return nil }
        let port = Self.freePort()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "heron-nginx-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(
            at: directory.appendingPathComponent("files"), withIntermediateDirectories: true)
        // Run as root (CI), nginx's workers would be `nobody`, who may not enter a private
        // $TMPDIR to read /files/: they stay root then.
        let user = geteuid() == 0 ? "user root;" : ""
        let config = """
            \(user)
            worker_processes 1;
            pid \(directory.path)/nginx.pid;
            error_log \(directory.path)/error.log warn;
            events { worker_connections 1024; }
            http {
                access_log off;
                client_body_temp_path \(directory.path)/body;
                proxy_temp_path \(directory.path)/proxy;
                fastcgi_temp_path \(directory.path)/fastcgi;
                uwsgi_temp_path \(directory.path)/uwsgi;
                scgi_temp_path \(directory.path)/scgi;
                keepalive_requests 1000000;
                keepalive_timeout 60s;
                client_max_body_size 0;
                server {
                    listen 127.0.0.1:\(port);
                    default_type text/plain;
                    location = /small { return 200 "ok"; }
                    location = /upload { return 200 "ok"; }
                    location = /cached { add_header Cache-Control "max-age=3600"; return 200 "ok"; }
                    location /files/ { root \(directory.path); }
                }
            }
            """
        let configFile = directory.appendingPathComponent("nginx.conf")
        guard (try? config.write(to: configFile, atomically: true, encoding: .utf8)) != nil else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: nginx)
        process.arguments = ["-p", directory.path, "-c", configFile.path, "-g", "daemon off;"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        self.process = process
        self.directory = directory
        self.baseURL = URL(string: "http://127.0.0.1:\(port)")!
        guard Self.waitUntilUp(port: port) else {
            stop()
            return nil
        }
    }

    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// A port the kernel reports free now.
    private static func freePort() -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return UInt16(bigEndian: address.sin_port)
    }

    private static func waitUntilUp(port: UInt16) -> Bool {
        for _ in 0..<100 {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = port.bigEndian
            let result = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            close(fd)
            if result == 0 { return true }
            usleep(50_000)
        }
        return false
    }
}
