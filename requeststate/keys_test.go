package requeststate

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

func TestParseKeysAcceptsEveryBase64Spelling(t *testing.T) {
	secret := bytes.Repeat([]byte{0xfb, 0xff, 0xbe}, 11)[:SecretSize] // has '+', '/' or '-', '_' when encoded
	forms := map[string]string{
		"std padded":   base64.StdEncoding.EncodeToString(secret),
		"std raw":      base64.RawStdEncoding.EncodeToString(secret),
		"url padded":   base64.URLEncoding.EncodeToString(secret),
		"url raw":      base64.RawURLEncoding.EncodeToString(secret),
		"spaces round": "  " + base64.StdEncoding.EncodeToString(secret) + " ",
	}
	for name, enc := range forms {
		t.Run(name, func(t *testing.T) {
			keys, err := ParseKeys(" a:" + enc + " , b:" + enc)
			if err != nil {
				t.Fatalf("ParseKeys: %v", err)
			}
			if len(keys) != 2 || keys[0].ID != "a" || keys[1].ID != "b" {
				t.Fatalf("keys = %v", keys)
			}
			if !bytes.Equal(keys[0].Secret, secret) {
				t.Fatalf("secret decoded wrongly")
			}
		})
	}
}

func TestParseKeysRejectsBadInput(t *testing.T) {
	good := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, SecretSize))
	short := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, 16))
	cases := map[string]string{
		"empty":          "",
		"blank":          "  ",
		"no colon":       "k1" + good,
		"empty id":       ":" + good,
		"bad id char":    "k 1:" + good,
		"comma in id":    "k,1:" + good,
		"long id":        strings.Repeat("k", MaxKeyIDLen+1) + ":" + good,
		"short secret":   "k1:" + short,
		"not base64":     "k1:" + strings.Repeat("!", 44),
		"duplicate id":   "k1:" + good + ",k1:" + good,
		"trailing comma": "k1:" + good + ",",
	}
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			keys, err := ParseKeys(in)
			if err == nil {
				t.Fatalf("ParseKeys accepted %q: %v", in, keys)
			}
			if strings.Contains(err.Error(), good) || strings.Contains(err.Error(), short) {
				t.Fatalf("error leaks the secret: %v", err)
			}
		})
	}
}

func TestFormatKeysRoundTrips(t *testing.T) {
	k1, err := GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	k2, err := GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	if k1.ID == k2.ID || bytes.Equal(k1.Secret, k2.Secret) {
		t.Fatalf("two generated keys collide: %v %v", k1, k2)
	}
	keys, err := ParseKeys(FormatKeys(k1, k2))
	if err != nil {
		t.Fatalf("ParseKeys(FormatKeys): %v", err)
	}
	if len(keys) != 2 || keys[0].ID != k1.ID || !bytes.Equal(keys[0].Secret, k1.Secret) ||
		keys[1].ID != k2.ID || !bytes.Equal(keys[1].Secret, k2.Secret) {
		t.Fatalf("round trip changed the keys")
	}
}

func TestKeyNeverPrintsItsSecret(t *testing.T) {
	k := testKey("prod-2026", 0xAB)
	secretForms := []string{
		base64.StdEncoding.EncodeToString(k.Secret),
		fmt.Sprintf("%x", k.Secret),
		fmt.Sprint(k.Secret), // [171 171 ...]
		"171",
		"ab",
		"AB",
	}
	var outputs []string
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d"} {
		outputs = append(outputs, fmt.Sprintf(verb, k), fmt.Sprintf(verb, &k), fmt.Sprintf(verb, []Key{k}))
	}
	outputs = append(outputs, k.String(), k.GoString(), fmt.Sprint(struct{ K Key }{k}))
	var logged bytes.Buffer
	// No time in the record: a timestamp's digits ("…17:27:06.8117…") could hold a
	// secret form by chance.
	noTime := &slog.HandlerOptions{ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
		if len(groups) == 0 && a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}
	slog.New(slog.NewJSONHandler(&logged, noTime)).Info("key", "key", k)
	outputs = append(outputs, logged.String())
	for _, out := range outputs {
		if !strings.Contains(out, "prod-2026") && !strings.Contains(out, "redacted") {
			t.Errorf("output %q names neither the id nor redaction", out)
		}
		low := strings.ToLower(out)
		for _, s := range secretForms {
			if strings.Contains(low, strings.ToLower(s)) && !strings.Contains(strings.ToLower(k.ID), strings.ToLower(s)) {
				t.Errorf("output %q contains secret form %q", out, s)
			}
		}
	}
	if !strings.Contains(logged.String(), `"id":"prod-2026"`) {
		t.Errorf("slog output lacks the key id: %s", logged.String())
	}
	if out, err := json.Marshal(k); err == nil {
		t.Errorf("json.Marshal(Key) = %s, want an error", out)
	}
}
