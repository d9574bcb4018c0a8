// One import for one job: `import HTTPEncoding` gives the requests and bodies it encodes.
@_exported import HTTPCore
