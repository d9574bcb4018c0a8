// HTTPClient sends HTTPCore requests over a pluggable transport (URLSession by
// default, on Linux through FoundationNetworking), with interceptor and
// observer chains, a composable retry policy stack, auth with token refresh,
// logging, progress, uploads and downloads. It depends on HTTPCore only.
// The API lands with the HTTPClient issue.
import HTTPCore
