package main

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/mcpkit/mcpkit/tap/capture"
	"github.com/mcpkit/mcpkit/upstream"
)

// Names of the commands' own metrics (mcpkit's, not the semantic
// conventions'), read when a reader collects.
const (
	upstreamStateMetric    = "mcpkit.upstream.servers"
	upstreamRestartsMetric = "mcpkit.upstream.restarts"
	tapMessagesMetric      = "mcpkit.tap.messages"
	tapJSONRPCMetric       = "mcpkit.tap.jsonrpc.messages"
	tapProblemsMetric      = "mcpkit.tap.problems"
)

// observeUpstreams makes the states and restarts of the servers statuses
// lists (a gateway's or a host's) metrics: mcpkit.upstream.servers is 1
// for each server with its state as mcpkit.upstream.state, and
// mcpkit.upstream.restarts counts its connections after the first.
func (t *telemetry) observeUpstreams(statuses func() []upstream.Status) error {
	m := t.meter()
	if m == nil {
		return nil
	}
	state, err := m.Int64ObservableGauge(upstreamStateMetric, metric.WithUnit("{server}"),
		metric.WithDescription("1 for each configured server, in its current state (mcpkit.upstream.state: disabled, starting, ready, backoff, stopped)."))
	if err != nil {
		return err
	}
	restarts, err := m.Int64ObservableCounter(upstreamRestartsMetric, metric.WithUnit("{restart}"),
		metric.WithDescription("Connections to a configured server after its first: restarts and reconnections."))
	if err != nil {
		return err
	}
	_, err = m.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		for _, st := range statuses() {
			name := attribute.String("mcpkit.upstream.name", st.Name)
			o.ObserveInt64(state, 1, metric.WithAttributes(name, attribute.String("mcpkit.upstream.state", st.State.String())))
			o.ObserveInt64(restarts, int64(max(st.Connects-1, 0)), metric.WithAttributes(name))
		}
		return nil
	}, state, restarts)
	return err
}

// observeTap makes the counts of a tap's recorder metrics: messages by
// direction, JSON-RPC messages by type, and the problems it saw by kind.
func (t *telemetry) observeTap(rec *capture.Recorder) error {
	m := t.meter()
	if m == nil {
		return nil
	}
	messages, err := m.Int64ObservableCounter(tapMessagesMetric, metric.WithUnit("{message}"),
		metric.WithDescription("Messages the tap relayed, by mcpkit.tap.direction (client_to_server, server_to_client)."))
	if err != nil {
		return err
	}
	rpc, err := m.Int64ObservableCounter(tapJSONRPCMetric, metric.WithUnit("{message}"),
		metric.WithDescription("JSON-RPC messages inside them (a batch counts each element), by jsonrpc.message.type (request, notification, response)."))
	if err != nil {
		return err
	}
	problems, err := m.Int64ObservableCounter(tapProblemsMetric, metric.WithUnit("{record}"),
		metric.WithDescription("What went wrong, by mcpkit.tap.problem: invalid (not JSON), http_error, upstream_error, unmatched (a response to no request), dropped (the recorder's buffer was full), unwritten (the capture could not be written)."))
	if err != nil {
		return err
	}
	dir := func(v string) metric.ObserveOption {
		return metric.WithAttributes(attribute.String("mcpkit.tap.direction", v))
	}
	typ := func(v string) metric.ObserveOption {
		return metric.WithAttributes(attribute.String("jsonrpc.message.type", v))
	}
	prob := func(v string) metric.ObserveOption {
		return metric.WithAttributes(attribute.String("mcpkit.tap.problem", v))
	}
	_, err = m.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		s := rec.Summary()
		o.ObserveInt64(messages, s.C2S, dir("client_to_server"))
		o.ObserveInt64(messages, s.S2C, dir("server_to_client"))
		o.ObserveInt64(rpc, s.Requests, typ("request"))
		o.ObserveInt64(rpc, s.Notifications, typ("notification"))
		o.ObserveInt64(rpc, s.Responses, typ("response"))
		o.ObserveInt64(problems, s.Invalid, prob("invalid"))
		o.ObserveInt64(problems, s.HTTPErrors, prob("http_error"))
		o.ObserveInt64(problems, s.UpstreamErrors, prob("upstream_error"))
		o.ObserveInt64(problems, s.Unmatched, prob("unmatched"))
		o.ObserveInt64(problems, s.Dropped, prob("dropped"))
		o.ObserveInt64(problems, s.Unwritten, prob("unwritten"))
		return nil
	}, messages, rpc, problems)
	return err
}
