// HTTPMultipart builds multipart/form-data bodies (RFC 7578, RFC 2046 §5.1)
// of any size: parts from text, data, files and streams, encoded to memory,
// to a file on disk or as a streaming request body in bounded memory, and a
// Codable multipart encoder. It depends on HTTPCore and HTTPEncoding.
// The API lands with the HTTPMultipart issue.
import HTTPCore
