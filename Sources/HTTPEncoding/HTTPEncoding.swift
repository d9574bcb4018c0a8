// HTTPEncoding turns Swift values into request bodies and query strings:
// a Codable application/x-www-form-urlencoded encoder and decoder (bracket,
// no-bracket and indexed arrays; numeric or literal bools; date, data and key
// strategies), untyped parameter dictionaries, JSON bodies, and the small
// body-encoder and response-decoder protocols the endpoint layer uses.
// It depends on HTTPCore only. The API lands with the HTTPEncoding issue.
import HTTPCore
