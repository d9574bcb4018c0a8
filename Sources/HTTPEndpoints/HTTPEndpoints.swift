// HTTPEndpoints describes typed `Endpoint<Request, Response>` values, declared
// as statics, with RFC 6570 path and query templates, called through the
// client. It joins HTTPCore, HTTPEncoding, HTTPMultipart and HTTPClient.
// The API lands with the endpoint issue.
import HTTPClient
import HTTPCore
import HTTPEncoding
import HTTPMultipart
