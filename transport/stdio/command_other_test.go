//go:build !unix

package stdio

func ignoreSIGTERM() {}
