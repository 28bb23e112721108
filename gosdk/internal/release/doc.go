// Package release tells which go-sdk release a binary is linked with and
// which protocol versions that release speaks. The adapter reports the
// versions to the harness (gosdktest's Adapter.ProtocolVersions), and the
// tests use them to skip what the release lacks.
//
// The release is read from the binary's build information, which test
// binaries carry too, so nothing is probed and the server logs nothing.
package release
