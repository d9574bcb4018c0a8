// One import for everything: `import HTTPEndpoints` gives every layer beneath it.
@_exported import HTTPClient
@_exported import HTTPCore
@_exported import HTTPEncoding
@_exported import HTTPMultipart
