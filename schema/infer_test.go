package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// everyTag uses every tag kind the package understands.
type everyTag struct {
	Name   string   `json:"name" jsonschema:"title=Name,description=Who to greet\\, politely,minLength=1,maxLength=40,pattern=^[A-Za-z ]+$,examples=Ada|Grace"`
	Mode   string   `json:"mode,omitempty" jsonschema:"enum=fast|slow,default=fast"`
	Count  int      `json:"count" description:"How many times, at most 10." jsonschema:"minimum=1,maximum=10,default=3"`
	Ratio  float64  `json:"ratio,omitzero" jsonschema:"exclusiveMinimum=0,exclusiveMaximum=1,multipleOf=0.05"`
	Email  string   `json:"email,omitempty" jsonschema:"format=email"`
	Tags   []string `json:"tags,omitempty" jsonschema:"enum=a|b|c,minItems=1,maxItems=3"`
	Force  *bool    `json:"force" jsonschema:"required,deprecated"`
	Legacy string   `json:"legacy" jsonschema:"optional"`
	Level  *string  `json:"level,omitempty" jsonschema:"enum=low|high"`
	Blob   []byte   `json:"blob,omitempty"`
	Port   uint16   `json:"port,omitempty"`
	Quoted int64    `json:"quoted,string"`
	Any    any      `json:"any,omitempty" jsonschema:"default=hello"`
	Skip   string   `json:"-"`
	//lint:ignore U1000 on purpose: inference must skip unexported fields
	hidden string
}

type address struct {
	Street string `json:"street"`
	City   string `json:"city"`
}

type nested struct {
	Home address  `json:"home"`
	Work *address `json:"work"`
}

type sliceOfStruct struct {
	Addresses []address `json:"addresses"`
	Pair      [2]int    `json:"pair"`
	Matrix    [][]float64
}

type maps struct {
	Counts  map[string]int     `json:"counts"`
	ByName  map[string]address `json:"byName"`
	ByID    map[int]string     `json:"byId"`
	Loose   map[string]any     `json:"loose,omitempty"`
	Headers map[string][]string
}

type pointers struct {
	Limit  *int      `json:"limit"`
	Nested **string  `json:"nested"`
	Addr   *address  `json:"addr,omitempty"`
	List   *[]string `json:"list"`
}

type Base struct {
	ID      string    `json:"id" description:"Unique identifier."`
	Created time.Time `json:"created"`
	Name    string    `json:"name"`
}

type Extra struct {
	Note string `json:"note"`
}

type embedded struct {
	Base           // promoted: id, created; name is shadowed below
	*Extra         // promoted through a pointer: optional
	Inner  address `json:"inner"` // a named field, not flattened
	Name   string  `json:"name" description:"Shadows Base.Name."`
}

type times struct {
	At      time.Time     `json:"at"`
	Until   *time.Time    `json:"until,omitempty"`
	Timeout time.Duration `json:"timeout"`
}

type tree struct {
	Value    int     `json:"value"`
	Children []*tree `json:"children,omitempty"`
}

type forest struct {
	Trees []tree  `json:"trees"`
	Left  *person `json:"left"`
	Main  tree    `json:"main"`
}

type person struct {
	Name    string   `json:"name"`
	Friends []friend `json:"friends"`
}

type friend struct {
	Since  int     `json:"since"`
	Person *person `json:"person"`
}

type currency string

func (currency) JSONSchema() json.RawMessage {
	return json.RawMessage(`{"type":"string","pattern":"^[A-Z]{3}$","description":"ISO 4217 code"}`)
}

type customJSON struct{ v int }

func (c customJSON) MarshalJSON() ([]byte, error) { return json.Marshal(c.v) }

type specials struct {
	Raw      json.RawMessage `json:"raw"`
	Any      any             `json:"any"`
	Err      error           `json:"err,omitempty"`
	Custom   customJSON      `json:"custom"`
	IP       net.IP          `json:"ip"`
	Currency currency        `json:"currency"`
	Price    *currency       `json:"price" description:"Overrides the provider's description."`
}

func TestForGolden(t *testing.T) {
	for _, c := range []struct {
		name string
		t    reflect.Type
	}{
		{"every_tag", reflect.TypeFor[everyTag]()},
		{"nested", reflect.TypeFor[nested]()},
		{"slice_of_struct", reflect.TypeFor[sliceOfStruct]()},
		{"map", reflect.TypeFor[maps]()},
		{"pointer", reflect.TypeFor[*pointers]()},
		{"embedded", reflect.TypeFor[embedded]()},
		{"time", reflect.TypeFor[times]()},
		{"recursion_root", reflect.TypeFor[tree]()},
		{"recursion_defs", reflect.TypeFor[forest]()},
		{"specials", reflect.TypeFor[specials]()},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := ForType(c.t, nil)
			if err != nil {
				t.Fatal(err)
			}
			var indented bytes.Buffer
			if err := json.Indent(&indented, got, "", "  "); err != nil {
				t.Fatalf("output is not JSON: %v\n%s", err, got)
			}
			indented.WriteByte('\n')
			path := filepath.Join("testdata", "infer", c.name+".json")
			if *update {
				if err := os.WriteFile(path, indented.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if !bytes.Equal(indented.Bytes(), want) {
				t.Errorf("schema differs from %s:\n got: %s\nwant: %s", path, indented.Bytes(), want)
			}
			// Every inferred schema must be a valid 2020-12 schema.
			if _, err := Compile(got, nil); err != nil {
				t.Errorf("inferred schema does not compile: %v", err)
			}
		})
	}
}

// TestForRoundTrip checks that values encoded by encoding/json validate
// against the schemas inferred from their types.
func TestForRoundTrip(t *testing.T) {
	force, level, limit, str := true, "low", 3, "s"
	strp := &str
	cur := currency("EUR")
	for _, value := range []any{
		everyTag{Name: "Ada", Count: 2, Force: &force, Level: &level, Blob: []byte{1, 2}, Tags: []string{"a"}, Quoted: 7},
		nested{Home: address{"1 Main St", "Springfield"}},
		sliceOfStruct{Addresses: []address{{"a", "b"}}, Matrix: [][]float64{{1.5}}},
		maps{Counts: map[string]int{"x": 1}, ByName: map[string]address{}, ByID: map[int]string{4: "four"}, Headers: map[string][]string{}},
		pointers{Limit: &limit, Nested: &strp, List: &[]string{"x"}},
		embedded{Base: Base{ID: "1", Created: time.Now()}, Extra: &Extra{Note: "n"}},
		times{At: time.Now(), Timeout: time.Second},
		tree{Value: 1, Children: []*tree{{Value: 2}}},
		forest{Trees: []tree{{Value: 1}}, Left: &person{Name: "a", Friends: []friend{{Since: 1, Person: &person{Name: "b", Friends: []friend{}}}}}},
		specials{Raw: json.RawMessage(`[1]`), Custom: customJSON{3}, IP: net.IPv4(127, 0, 0, 1), Currency: "USD", Price: &cur},
	} {
		t.Run(reflect.TypeOf(value).Name(), func(t *testing.T) {
			s, err := ForType(reflect.TypeOf(value), nil)
			if err != nil {
				t.Fatal(err)
			}
			v, err := Compile(s, nil)
			if err != nil {
				t.Fatal(err)
			}
			data, err := json.Marshal(value)
			if err != nil {
				t.Fatal(err)
			}
			if err := v.Validate(data); err != nil {
				t.Errorf("encoded value %s does not validate: %v", data, err)
			}
		})
	}
}

func TestForErrors(t *testing.T) {
	type chanField struct {
		C chan int `json:"c"`
	}
	type unknownKey struct {
		A string `json:"a" jsonschema:"descripton=x"`
	}
	type badEnum struct {
		A int `json:"a" jsonschema:"enum=1|two"`
	}
	type minLengthOnInt struct {
		A int `json:"a" jsonschema:"minLength=1"`
	}
	type badPattern struct {
		A string `json:"a" jsonschema:"pattern=(("`
	}
	type twice struct {
		A string `json:"a" jsonschema:"minLength=1,minLength=2"`
	}
	type twoDescriptions struct {
		A string `json:"a" description:"x" jsonschema:"description=y"`
	}
	type badDefault struct {
		A address `json:"a" jsonschema:"default=home"`
	}
	type flagWithValue struct {
		A string `json:"a" jsonschema:"required=yes"`
	}
	type badMapKey struct {
		M map[address]int `json:"m"`
	}
	type minItemsOnString struct {
		A string `json:"a" jsonschema:"minItems=1"`
	}
	type negativeLength struct {
		A string `json:"a" jsonschema:"maxLength=-1"`
	}
	type badBound struct {
		A float64 `json:"a" jsonschema:"minimum=1e"`
	}
	type badBool struct {
		A bool `json:"a" jsonschema:"default=yes"`
	}
	// A tag with one keyword item is read as keywords (see TestDescriptionOnlyTag).
	type proseAmongKeywords struct {
		A string `json:"a" jsonschema:"optional, in seconds"`
	}
	type proseAfterKey struct {
		A int `json:"a" jsonschema:"minimum=1, at least one"`
	}
	type descriptionTwice struct {
		A string `json:"a" description:"x" jsonschema:"What it is"`
	}
	for _, c := range []struct {
		t    reflect.Type
		want string
	}{
		{reflect.TypeFor[int](), "got integer: schema is not an object schema"},
		{reflect.TypeFor[[]string](), "got array"},
		{reflect.TypeFor[any](), "got any JSON value"},
		{reflect.TypeFor[chanField](), "field C: unsupported type chan int"},
		{reflect.TypeFor[func()](), "unsupported type func()"},
		{reflect.TypeFor[unknownKey](), `field A: jsonschema tag: descripton: unknown key`},
		{reflect.TypeFor[badEnum](), `field A: jsonschema tag: enum: "two" is not an integer`},
		{reflect.TypeFor[minLengthOnInt](), "field A: jsonschema tag: minLength: applies to strings, not integer"},
		{reflect.TypeFor[badPattern](), "field A: jsonschema tag: pattern: error parsing regexp"},
		{reflect.TypeFor[twice](), "minLength given twice"},
		{reflect.TypeFor[twoDescriptions](), "also has a description tag"},
		{reflect.TypeFor[badDefault](), `default: "home" is not valid JSON`},
		{reflect.TypeFor[flagWithValue](), "required: takes no value"},
		{reflect.TypeFor[badMapKey](), "unsupported map key type"},
		{reflect.TypeFor[minItemsOnString](), "minItems: applies to arrays, not string"},
		{reflect.TypeFor[negativeLength](), `maxLength: "-1" is not a non-negative integer`},
		{reflect.TypeFor[badBound](), `minimum: "1e" is not a JSON number`},
		{reflect.TypeFor[badBool](), `default: "yes" is not a boolean`},
		{reflect.TypeFor[proseAmongKeywords](), `"in seconds" is neither key=value nor a flag (a description mixed with keywords is written description=...)`},
		{reflect.TypeFor[proseAfterKey](), `"at least one" is neither key=value nor a flag`},
		{reflect.TypeFor[descriptionTwice](), "the field also has a description tag"},
	} {
		_, err := ForType(c.t, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ForType(%v) = %v, want an error containing %q", c.t, err, c.want)
		}
	}
	if _, err := For[int](nil); !errors.Is(err, ErrNotObject) {
		t.Errorf("For[int] error %v does not wrap ErrNotObject", err)
	}
	if _, err := For[chan int](nil); errors.Is(err, ErrNotObject) {
		t.Errorf("For[chan int] error %v wraps ErrNotObject; it is an unsupported type", err)
	}
	if _, err := ForType(nil, nil); err == nil {
		t.Error("ForType(nil) succeeded")
	}
}

func TestForOptions(t *testing.T) {
	type small struct {
		A string `json:"a"`
	}
	got, err := For[small](&InferOptions{DeclareSchema: true, AllowAdditionalProperties: true})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	got, err = For[[]int](&InferOptions{AllowNonObject: true})
	if err != nil || string(got) != `{"type":"array","items":{"type":"integer"}}` {
		t.Errorf("For[[]int] with AllowNonObject = %s, %v", got, err)
	}
	got, err = For[map[string]float64](nil)
	if err != nil || string(got) != `{"type":"object","additionalProperties":{"type":"number"}}` {
		t.Errorf("For[map[string]float64] = %s, %v", got, err)
	}
	got, err = For[struct{}](nil)
	if err != nil || string(got) != `{"type":"object","properties":{},"additionalProperties":false}` {
		t.Errorf("For[struct{}] = %s, %v", got, err)
	}
}

// TestForEmbeddingConflicts follows encoding/json's rules for fields of the
// same name: the shallower wins, a tagged one wins over an untagged one at
// the same depth, and otherwise both disappear.
func TestForEmbeddingConflicts(t *testing.T) {
	type A struct {
		X int `json:"x"`
		Y int
		Z int `json:"z"`
	}
	type B struct {
		W int `json:"x"`
		V int `json:"Y"`
		U int `json:"z"`
	}
	// Built with reflect so that vet's check for repeated tags, which
	// these conflicts trip on purpose, does not see them.
	outer := reflect.StructOf([]reflect.StructField{
		{Name: "A", Type: reflect.TypeFor[A](), Anonymous: true},
		{Name: "B", Type: reflect.TypeFor[B](), Anonymous: true},
		{Name: "Z", Type: reflect.TypeFor[string](), Tag: `json:"z"`},
	})
	got, err := ForType(outer, &InferOptions{AllowAdditionalProperties: true})
	if err != nil {
		t.Fatal(err)
	}
	// x: same depth, both tagged: hidden. Y: the tagged B.V wins over the
	// untagged A.Y. z: the shallow outer field wins.
	want := `{"type":"object","properties":{"Y":{"type":"integer"},"z":{"type":"string"}},"required":["Y","z"]}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	// encoding/json agrees on the property names.
	value := reflect.New(outer).Elem()
	value.Field(0).Set(reflect.ValueOf(A{X: 1, Y: 2}))
	value.Field(1).Set(reflect.ValueOf(B{V: 3}))
	value.Field(2).SetString("z")
	data, err := json.Marshal(value.Interface())
	if err != nil || string(data) != `{"Y":3,"z":"z"}` {
		t.Errorf("encoding/json produced %s, %v; the test's premise is wrong", data, err)
	}
}

// TestForCache checks that results are cached per type and options, and that
// a caller modifying its copy does not affect later callers.
func TestForCache(t *testing.T) {
	first, err := For[nested](nil)
	if err != nil {
		t.Fatal(err)
	}
	want := string(first)
	first[0] = 'X'
	again, _ := For[nested](nil)
	if string(again) != want {
		t.Fatalf("cached schema was modified through a returned copy: %s", again)
	}
	open, _ := For[nested](&InferOptions{AllowAdditionalProperties: true})
	if string(open) == want {
		t.Error("options are not part of the cache key")
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = For[nested](nil) }); n > 1 {
		t.Errorf("cached For allocates %v times, want at most 1 (the copy)", n)
	}
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			got, err := For[everyTag](nil)
			if err != nil {
				t.Error(err)
			}
			if !IsObjectSchema(got) {
				t.Errorf("not an object schema: %s", got)
			}
		})
	}
	wg.Wait()
}

func TestIsObjectSchema(t *testing.T) {
	for schema, want := range map[string]bool{
		`{"type":"object"}`:                      true,
		`{"type":"object","properties":{}}`:      true,
		`{"type":["object","null"]}`:             false,
		`{"type":"array"}`:                       false,
		`{}`:                                     false,
		`true`:                                   false,
		`not json`:                               false,
		`{"properties":{"type":{"type":"int"}}}`: false,
	} {
		if got := IsObjectSchema(json.RawMessage(schema)); got != want {
			t.Errorf("IsObjectSchema(%s) = %v, want %v", schema, got, want)
		}
	}
}

type panickyProvider struct{}

func (panickyProvider) JSONSchema() json.RawMessage { panic("boom") }

type arrayProvider struct{}

func (arrayProvider) JSONSchema() json.RawMessage { return json.RawMessage(`[1]`) }

//lint:ignore U1000 on purpose: a non-empty type whose pointer provides the schema
type pointerProvider struct{ n int }

func (*pointerProvider) JSONSchema() json.RawMessage { return json.RawMessage(`{"type":"integer"}`) }

func TestProvider(t *testing.T) {
	type usesPanicky struct {
		P panickyProvider `json:"p"`
	}
	if _, err := For[usesPanicky](nil); err == nil || !strings.Contains(err.Error(), "JSONSchema panicked: boom") {
		t.Errorf("panicking provider: %v", err)
	}
	type usesArray struct {
		P arrayProvider `json:"p"`
	}
	if _, err := For[usesArray](nil); err == nil || !strings.Contains(err.Error(), "is not a JSON object") {
		t.Errorf("non-object provider: %v", err)
	}
	type usesPointer struct {
		P pointerProvider `json:"p" jsonschema:"minimum=2"`
	}
	got, err := For[usesPointer](nil)
	want := `{"type":"object","properties":{"p":{"type":"integer","minimum":2}},"required":["p"],"additionalProperties":false}`
	if err != nil || string(got) != want {
		t.Errorf("pointer-receiver provider: %s, %v\nwant %s", got, err, want)
	}
}

type listy []listy

type mapTree map[string]mapTree

type selfPointer *selfPointer

func TestForRecursiveNonStruct(t *testing.T) {
	type holder struct {
		L listy   `json:"l"`
		M mapTree `json:"m"`
	}
	got, err := For[holder](nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"object","properties":{"l":{"$ref":"#/$defs/listy"},"m":{"$ref":"#/$defs/mapTree"}},` +
		`"required":["l","m"],"additionalProperties":false,"$defs":{"listy":{"type":"array","items":{"$ref":"#/$defs/listy"}},` +
		`"mapTree":{"type":"object","additionalProperties":{"$ref":"#/$defs/mapTree"}}}}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	v, err := Compile(got, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Validate(json.RawMessage(`{"l":[[],[[]]],"m":{"a":{"b":{}}}}`)); err != nil {
		t.Errorf("valid nesting rejected: %v", err)
	}
	if err := v.Validate(json.RawMessage(`{"l":[[1]],"m":{"a":2}}`)); err == nil ||
		!strings.Contains(err.Error(), "/l/0/0: got number, want array") || !strings.Contains(err.Error(), "/m/a: got number, want object") {
		t.Errorf("invalid nesting: %v", err)
	}
	// A pointer to itself must terminate (it describes only nulls).
	if _, err := For[selfPointer](&InferOptions{AllowNonObject: true}); err != nil {
		t.Errorf("For[selfPointer]: %v", err)
	}
}

// TestDocExample keeps the package documentation's example honest.
func TestDocExample(t *testing.T) {
	type SearchInput struct {
		Query string   `json:"query" description:"What to look for."`
		Limit int      `json:"limit,omitempty" jsonschema:"minimum=1,maximum=100,default=10"`
		Sort  string   `json:"sort,omitempty" jsonschema:"enum=relevance|date"`
		Tags  []string `json:"tags,omitempty" jsonschema:"pattern=^[a-z]+$,maxItems=5"`
	}
	got, err := For[SearchInput](nil)
	want := `{"type":"object","properties":{"query":{"type":"string","description":"What to look for."},` +
		`"limit":{"type":"integer","default":10,"minimum":1,"maximum":100},"sort":{"type":"string","enum":["relevance","date"]},` +
		`"tags":{"type":"array","maxItems":5,"items":{"type":"string","pattern":"^[a-z]+$"}}},"required":["query"],"additionalProperties":false}`
	if err != nil || string(got) != want {
		t.Errorf("got  %s, %v\nwant %s", got, err, want)
	}
}
