// Package drift classifies the changes between two versions of what an MCP
// server offers (its tools, resources, resource templates, prompts and
// capabilities) as breaking or compatible for the clients that use it.
//
// A change breaks clients when a request that worked before can now fail or
// a result a client read can now be missing or of another type: a tool,
// resource, template or prompt removed or renamed; a new required argument;
// an argument's type narrowed, an enum value removed, a bound tightened
// (maximum lowered, minLength raised, a pattern added), additionalProperties
// closed; an output field removed, made optional or its type changed; a
// capability removed. The rest is compatible: a new tool or optional
// argument, a widened type or enum, descriptions, titles and annotations.
//
// Inputs and outputs go opposite ways: a client sends arguments (narrowing
// what the server accepts breaks it) and reads results (widening what the
// server may return breaks it). A schema keyword the package does not
// classify (anyOf, $ref, if/then...) that changed in an input schema is
// reported as breaking, to be reviewed, never passed silently.
//
// Package mcptest's Golden prints the classification above its diff when
// both sides are lists of a server; mcptestkit diff prints it and exits 1
// on a breaking change.
package drift
