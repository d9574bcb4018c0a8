// One import for one job: `import HTTPClient` is enough to build and send requests.
@_exported import HTTPCore

#if canImport(FoundationNetworking)
@_exported import FoundationNetworking
#endif
