// Package jsonrpc implements JSON-RPC 2.0 messages: the message type ([Message]),
// ids that keep their JSON type ([ID]), error objects ([Error], with the standard
// codes such as [CodeInvalidParams]) and a fast validating codec ([Decode],
// [DecodeInto], [DecodeBatch], [Encode] and the Append functions such as
// [AppendResult]). It knows nothing of MCP. (The connection engine that matches
// responses to calls and runs handlers is internal to mcpkit.)
//
// The codec keeps params and results as sub-slices of the message it decoded, so
// decoding a message costs one allocation (the Message) plus its string id, if any;
// there are no per-message fixed-size buffers.
//
// [RelatedRequest] tells a transport which incoming request a message written by a
// handler belongs to, so that HTTP transports can send it on that request's stream.
package jsonrpc
