// `import HTTPCore` gives Foundation's `URL`, `Data` and `Date` too: every request needs them.
@_exported import Foundation
