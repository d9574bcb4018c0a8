// One import for one job: `import HTTPMultipart` gives the encoders and requests it builds on.
@_exported import HTTPCore
@_exported import HTTPEncoding
