// Package crash carries panic reports from a server adapter's last-resort
// recovery to whoever is watching the connection (the test harness).
//
// The harness puts a reporter in the context it gives an adapter's Serve
// ([WithReporter]); server SDKs derive their handler contexts from that one,
// so the adapter's recovery finds the reporter in the handler's context and
// hands it the panic ([Deliver]), and answers the request with the panic
// worded by [Report.String]. Nothing is global, so parallel connections
// report to their own tests.
package crash
