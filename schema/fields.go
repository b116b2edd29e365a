package schema

import (
	"cmp"
	"reflect"
	"slices"
	"strings"
	"unicode"
)

// field is one JSON property of a struct, after encoding/json's rules for
// names, embedding and conflicts have been applied.
type field struct {
	name       string // JSON property name
	goName     string // Go selector, such as "Inner.Name", for error messages
	typ        reflect.Type
	tag        reflect.StructTag
	index      []int
	tagged     bool // the name comes from a json tag
	omitEmpty  bool // omitempty or omitzero
	quoted     bool // the ",string" option
	viaPointer bool // promoted through an embedded pointer
	required   bool
}

// structFields lists the JSON properties of struct type t in encoding/json's
// order: declaration order, with the fields of an embedded struct at the
// position of the embedding field. Name conflicts are resolved as
// encoding/json does: the shallowest field wins, then the tagged one; a tie
// hides all contenders.
func structFields(t reflect.Type) []field {
	type embedded struct {
		typ        reflect.Type
		index      []int
		goName     string
		viaPointer bool
	}
	var fields []field
	next := []embedded{{typ: t}}
	visited := map[reflect.Type]bool{}
	for len(next) > 0 {
		current := next
		next = nil
		for _, e := range current {
			if visited[e.typ] {
				continue
			}
			visited[e.typ] = true
			for i := 0; i < e.typ.NumField(); i++ {
				sf := e.typ.Field(i)
				if sf.Anonymous {
					ft := sf.Type
					if ft.Kind() == reflect.Pointer {
						ft = ft.Elem()
					}
					if !sf.IsExported() && ft.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				if !validJSONName(name) {
					name = ""
				}
				index := append(slices.Clip(e.index), i)
				goName := sf.Name
				if e.goName != "" {
					goName = e.goName + "." + sf.Name
				}
				ft := sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if name != "" || !sf.Anonymous || ft.Kind() != reflect.Struct {
					f := field{
						name:       name,
						goName:     goName,
						typ:        sf.Type,
						tag:        sf.Tag,
						index:      index,
						tagged:     name != "",
						viaPointer: e.viaPointer,
					}
					if f.name == "" {
						f.name = sf.Name
					}
					for opt := range strings.SplitSeq(opts, ",") {
						switch opt {
						case "omitempty", "omitzero":
							f.omitEmpty = true
						case "string":
							f.quoted = true
						}
					}
					f.required = !f.omitEmpty && !f.viaPointer && sf.Type.Kind() != reflect.Pointer
					fields = append(fields, f)
					continue
				}
				next = append(next, embedded{
					typ:        ft,
					index:      index,
					goName:     goName,
					viaPointer: e.viaPointer || sf.Type.Kind() == reflect.Pointer,
				})
			}
		}
	}

	// Resolve conflicts: group by name, keep the dominant field of each group.
	slices.SortStableFunc(fields, func(a, b field) int {
		return cmp.Or(strings.Compare(a.name, b.name), cmp.Compare(len(a.index), len(b.index)),
			boolOrder(b.tagged, a.tagged), slices.Compare(a.index, b.index))
	})
	out := fields[:0]
	for i := 0; i < len(fields); {
		j := i + 1
		for j < len(fields) && fields[j].name == fields[i].name {
			j++
		}
		group := fields[i:j]
		i = j
		if len(group) > 1 && len(group[0].index) == len(group[1].index) && group[0].tagged == group[1].tagged {
			continue // ambiguous: encoding/json hides them all
		}
		out = append(out, group[0])
	}
	slices.SortFunc(out, func(a, b field) int { return slices.Compare(a.index, b.index) })
	return out
}

func boolOrder(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// validJSONName reports whether a json tag name is one encoding/json accepts.
func validJSONName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case unicode.IsLetter(c), unicode.IsDigit(c):
		default:
			return false
		}
	}
	return true
}
