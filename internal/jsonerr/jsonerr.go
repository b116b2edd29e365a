// Package jsonerr restates encoding/json's decoding errors in the terms of the JSON
// text rather than of the Go types it was decoded into, so that a peer reading an
// error message sees the member it sent ("uri: got number, want string"), never a
// Go struct or type name ("Go struct field ReadResourceParams.uri of type string").
package jsonerr

import (
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"
)

// Message returns err's message with each encoding/json type error it wraps (a
// *json.UnmarshalTypeError) restated by Describe. Other messages are returned as
// they are.
func Message(err error) string {
	msg := err.Error()
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		msg = strings.Replace(msg, te.Error(), Describe(te), 1)
	}
	return msg
}

// Describe restates a type error as "<path>: got <JSON kind>, want <JSON type>",
// where path is the dotted JSON member path encoding/json recorded (left out when
// the value is the whole text).
func Describe(te *json.UnmarshalTypeError) string {
	got := te.Value
	if got == "bool" {
		got = "boolean"
	}
	s := "got " + got + ", want " + jsonType(te.Type)
	if te.Field != "" {
		s = te.Field + ": " + s
	}
	return s
}

// jsonType names the JSON type a Go type decodes from.
func jsonType(t reflect.Type) string {
	if t == nil {
		return "another type"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		bits := t.Bits()
		return "integer from " + strconv.FormatInt(-1<<(bits-1), 10) + " to " + strconv.FormatInt(1<<(bits-1)-1, 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "integer from 0 to " + strconv.FormatUint(1<<t.Bits()-1, 10)
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "string (base64)"
		}
		return "array"
	case reflect.Array:
		return "array"
	case reflect.Map, reflect.Struct:
		return "object"
	}
	return "another type"
}
