package export_test

import (
	"encoding/json"
	"math"
	"net/url"
	"strconv"
	"testing"
	"time"
)

// checkHAR checks data against the HAR 1.2 specification's required members and
// their types, and returns the log object.
func checkHAR(t *testing.T, data []byte) map[string]any {
	t.Helper()
	var f map[string]any
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	c := &harChecker{t: t}
	log := c.object(f, "log", "")
	c.str(log, "version", "log")
	if log["version"] != "1.2" {
		t.Errorf("log.version %v, want 1.2", log["version"])
	}
	creator := c.object(log, "creator", "log")
	c.str(creator, "name", "log.creator")
	c.str(creator, "version", "log.creator")
	if pages, ok := log["pages"]; ok {
		if _, ok := pages.([]any); !ok {
			t.Errorf("log.pages is not an array")
		}
	}
	for i, e := range c.array(log, "entries", "log") {
		where := "log.entries[" + itoa(i) + "]"
		entry, ok := e.(map[string]any)
		if !ok {
			t.Errorf("%s is not an object", where)
			continue
		}
		c.date(entry, "startedDateTime", where)
		total := c.num(entry, "time", where)
		c.object(entry, "cache", where)
		c.request(c.object(entry, "request", where), where+".request")
		c.response(c.object(entry, "response", where), where+".response")
		tm := c.object(entry, "timings", where)
		sum := 0.0
		for _, k := range []string{"send", "wait", "receive"} {
			if v := c.num(tm, k, where+".timings"); v < 0 {
				t.Errorf("%s.timings.%s = %v, must not be negative", where, k, v)
			} else {
				sum += v
			}
		}
		for _, k := range []string{"blocked", "dns", "connect", "ssl"} {
			if v, ok := tm[k]; ok {
				if n, ok := v.(float64); !ok || n < -1 {
					t.Errorf("%s.timings.%s = %v", where, k, v)
				} else if n > 0 {
					sum += n
				}
			}
		}
		if math.Abs(sum-total) > 0.002 {
			t.Errorf("%s.time %v is not the sum of its timings %v", where, total, sum)
		}
	}
	return log
}

type harChecker struct{ t *testing.T }

func (c *harChecker) request(r map[string]any, where string) {
	c.str(r, "method", where)
	if u, err := url.Parse(c.str(r, "url", where)); err != nil || !u.IsAbs() {
		c.t.Errorf("%s.url is not an absolute URL: %v", where, r["url"])
	}
	c.str(r, "httpVersion", where)
	c.pairs(r, "cookies", where)
	c.pairs(r, "headers", where)
	c.pairs(r, "queryString", where)
	c.num(r, "headersSize", where)
	c.num(r, "bodySize", where)
	if _, ok := r["postData"]; ok {
		pd := c.object(r, "postData", where)
		c.str(pd, "mimeType", where+".postData")
		c.str(pd, "text", where+".postData")
	}
}

func (c *harChecker) response(r map[string]any, where string) {
	c.num(r, "status", where)
	c.str(r, "statusText", where)
	c.str(r, "httpVersion", where)
	c.pairs(r, "cookies", where)
	c.pairs(r, "headers", where)
	content := c.object(r, "content", where)
	c.num(content, "size", where+".content")
	c.str(content, "mimeType", where+".content")
	if _, ok := content["text"]; ok {
		c.str(content, "text", where+".content")
	}
	c.str(r, "redirectURL", where)
	c.num(r, "headersSize", where)
	c.num(r, "bodySize", where)
}

func (c *harChecker) object(m map[string]any, k, where string) map[string]any {
	o, ok := m[k].(map[string]any)
	if !ok {
		c.t.Errorf("%s.%s: missing or not an object (%T)", where, k, m[k])
	}
	return o
}

func (c *harChecker) array(m map[string]any, k, where string) []any {
	a, ok := m[k].([]any)
	if !ok {
		c.t.Errorf("%s.%s: missing or not an array (%T)", where, k, m[k])
	}
	return a
}

func (c *harChecker) str(m map[string]any, k, where string) string {
	s, ok := m[k].(string)
	if !ok {
		c.t.Errorf("%s.%s: missing or not a string (%T)", where, k, m[k])
	}
	return s
}

func (c *harChecker) num(m map[string]any, k, where string) float64 {
	n, ok := m[k].(float64)
	if !ok {
		c.t.Errorf("%s.%s: missing or not a number (%T)", where, k, m[k])
	}
	return n
}

func (c *harChecker) date(m map[string]any, k, where string) {
	if _, err := time.Parse(time.RFC3339Nano, c.str(m, k, where)); err != nil {
		c.t.Errorf("%s.%s: not an ISO 8601 date: %v", where, k, err)
	}
}

// pairs checks an array of {name, value} string pairs.
func (c *harChecker) pairs(m map[string]any, k, where string) {
	for i, p := range c.array(m, k, where) {
		o, ok := p.(map[string]any)
		if !ok {
			c.t.Errorf("%s.%s[%d] is not an object", where, k, i)
			continue
		}
		c.str(o, "name", where+"."+k)
		c.str(o, "value", where+"."+k)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
