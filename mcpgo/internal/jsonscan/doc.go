// Package jsonscan reads JSON without reflection: a validating scanner that
// walks an object's members or an array's elements in one pass, handing out
// each value exactly as written, with no allocation and no recursion.
//
// It is the fast path of the decoders that sit on every message (the
// JSON-RPC envelope, the client's common results). It accepts exactly what
// encoding/json accepts, and it is meant to be used the same way each time:
// a decoder reads what it knows with it, and whatever it is unsure of (an
// escaped or differently cased key, a member of an unusual type, invalid
// JSON) makes it hand the whole input to encoding/json, which then gives the
// result or names the error. Differential fuzz tests hold each such decoder
// to encoding/json.
package jsonscan
