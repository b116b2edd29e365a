// Package wire holds the HTTP side the providers share: a JSON POST with
// retries on overload, the decoding of error bodies, and the reading of a
// text/event-stream answer with the repository's sse decoder.
package wire

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/mcpkit/mcpkit/internal/sse"
	"github.com/mcpkit/mcpkit/llm"
)

// Endpoint is where a provider sends its requests.
type Endpoint struct {
	// Provider names the provider in errors.
	Provider string
	// Client sends the requests; nil means http.DefaultClient.
	Client *http.Client
	// URL is the full URL of the streaming endpoint.
	URL string
	// Header is added to every request (keys, versions).
	Header http.Header
	// MaxRetries is how many times a request the provider refused for load
	// (408, 409, 429, 5xx, 529) is sent again. Negative means never.
	MaxRetries int
}

// NewEndpoint returns the endpoint of provider at url: a copy of header with
// the non-empty values of set added (keys, API versions), and retries refusals
// for load maxRetries times — zero means defaultRetries, negative never.
func NewEndpoint(provider, url string, client *http.Client, header http.Header, set map[string]string, maxRetries, defaultRetries int) Endpoint {
	h := header.Clone()
	if h == nil {
		h = http.Header{}
	}
	for k, v := range set {
		if v != "" {
			h.Set(k, v)
		}
	}
	if maxRetries == 0 {
		maxRetries = defaultRetries
	}
	return Endpoint{Provider: provider, Client: client, URL: url, Header: h, MaxRetries: maxRetries}
}

// maxRetryWait is the longest Retry-After the client waits for; a provider
// asking for more gets its error reported instead.
const maxRetryWait = 30 * time.Second

// Post sends body and returns the response to a request that succeeded (2xx).
// A refusal for load is retried after the wait the provider asks for
// (Retry-After, retry-after-ms) or an exponential backoff; any other failure
// is returned as an *llm.APIError.
func (e *Endpoint) Post(ctx context.Context, body []byte) (*http.Response, error) {
	client := e.Client
	if client == nil {
		client = http.DefaultClient
	}
	for attempt := 0; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.URL, bytes.NewReader(body))
		if err != nil {
			return nil, fmt.Errorf("llm: %s: %w", e.Provider, err)
		}
		for k, v := range e.Header {
			req.Header[k] = v
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "text/event-stream")
		resp, err := client.Do(req)
		if err != nil {
			return nil, fmt.Errorf("llm: %s: %w", e.Provider, err)
		}
		if resp.StatusCode/100 == 2 {
			return resp, nil
		}
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		_ = resp.Body.Close()
		apiErr := ParseError(e.Provider, resp.StatusCode, data)
		wait, retry := retryAfter(resp, attempt)
		if !retry || attempt >= e.MaxRetries {
			return nil, apiErr
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("%w (while waiting to retry: %w)", apiErr, ctx.Err())
		}
	}
}

// retryAfter says whether a refused request may be sent again, and after how
// long.
func retryAfter(resp *http.Response, attempt int) (time.Duration, bool) {
	switch s := resp.StatusCode; {
	case s == 408, s == 409, s == 429, s >= 500:
	default:
		return 0, false
	}
	if ms, err := strconv.ParseFloat(resp.Header.Get("Retry-After-Ms"), 64); err == nil && ms >= 0 {
		d := time.Duration(ms * float64(time.Millisecond))
		return d, d <= maxRetryWait
	}
	if v := resp.Header.Get("Retry-After"); v != "" {
		if secs, err := strconv.ParseFloat(v, 64); err == nil && secs >= 0 {
			d := time.Duration(secs * float64(time.Second))
			return d, d <= maxRetryWait
		}
		if at, err := http.ParseTime(v); err == nil {
			d := max(time.Until(at), 0)
			return d, d <= maxRetryWait
		}
	}
	return min(500*time.Millisecond<<attempt, 8*time.Second), true
}

// ParseError reads a provider's error body: {"error":{"type","code","message"}}
// (OpenAI and Anthropic), {"error":"text"} (Ollama and others), or anything
// else, whose start becomes the message.
func ParseError(provider string, status int, body []byte) *llm.APIError {
	e := &llm.APIError{Provider: provider, StatusCode: status}
	var doc struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &doc) == nil && len(doc.Error) > 0 {
		var obj struct {
			Type    string          `json:"type"`
			Code    json.RawMessage `json:"code"`
			Message string          `json:"message"`
		}
		var text string
		switch {
		case json.Unmarshal(doc.Error, &obj) == nil:
			e.Type, e.Message = obj.Type, obj.Message
			if code := strings.Trim(string(obj.Code), `"`); code != "" && code != "null" && code != e.Type {
				if e.Type != "" {
					e.Type += ", "
				}
				e.Type += code
			}
			return e
		case json.Unmarshal(doc.Error, &text) == nil:
			e.Message = text
			return e
		}
	}
	msg := strings.TrimSpace(string(body))
	if len(msg) > 500 {
		msg = msg[:500] + "…"
	}
	e.Message = msg
	return e
}

// Events yields the server-sent events of body, then closes it. A read error
// ends the sequence with that error; so does the context's end.
func Events(ctx context.Context, provider string, body io.ReadCloser) iter.Seq2[sse.Event, error] {
	return func(yield func(sse.Event, error) bool) {
		defer body.Close()
		dec := sse.NewDecoder(body)
		for {
			ev, err := dec.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				if ctx.Err() != nil {
					err = ctx.Err()
				}
				yield(sse.Event{}, fmt.Errorf("llm: %s: reading the stream: %w", provider, err))
				return
			}
			if !yield(ev, nil) {
				return
			}
		}
	}
}

// Decoder turns a provider's server-sent events into llm events.
type Decoder interface {
	// Event decodes one server-sent event, yielding the llm events it makes;
	// done says that the stream is over.
	Event(ev sse.Event, yield func(llm.Event) bool) (done bool, err error)
	// End is called when the body ended before Event said done: it yields
	// what is still pending, or fails (llm.ErrIncomplete) if the answer is cut.
	End(yield func(llm.Event) bool) error
}

// Stream runs a provider's streaming request: it posts body and decodes the
// answer's events with dec. A stream that ends before its stop event ends
// with an error wrapping llm.ErrIncomplete.
func Stream(ctx context.Context, e *Endpoint, body []byte, dec Decoder) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		resp, err := e.Post(ctx, body)
		if err != nil {
			yield(llm.Event{}, err)
			return
		}
		if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
			data, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
			_ = resp.Body.Close()
			apiErr := ParseError(e.Provider, resp.StatusCode, data)
			apiErr.Message = fmt.Sprintf("expected a text/event-stream answer, got %q: %s", ct, apiErr.Message)
			yield(llm.Event{}, apiErr)
			return
		}
		stopped, quit := false, false
		emit := func(ev llm.Event) bool {
			if quit {
				return false
			}
			stopped = stopped || ev.Type == llm.EventStop
			quit = !yield(ev, nil)
			return !quit
		}
		fail := func(err error) {
			if !quit {
				yield(llm.Event{}, err)
			}
		}
		done := false
		for ev, err := range Events(ctx, e.Provider, resp.Body) {
			if err != nil {
				fail(err)
				return
			}
			if done, err = dec.Event(ev, emit); err != nil {
				fail(err)
				return
			}
			if quit || done {
				break
			}
		}
		if quit {
			return
		}
		if !done {
			if err := dec.End(emit); err != nil {
				fail(err)
				return
			}
		}
		if !stopped {
			fail(fmt.Errorf("llm: %s: %w", e.Provider, llm.ErrIncomplete))
		}
	}
}
