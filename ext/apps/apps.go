package apps

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"reflect"
	"slices"
	"strings"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/schema"
)

// The identifiers of the extension.
const (
	// ExtensionID names the extension in capabilities' "extensions".
	ExtensionID = "io.modelcontextprotocol/ui"
	// MIMEType is the type of a view's content, which a client lists in its
	// extension settings ({"mimeTypes":[MIMEType]}) to say it renders views.
	MIMEType = "text/html;profile=mcp-app"
	// URIScheme starts the URI of every view.
	URIScheme = "ui://"
	// LegacyResourceURIKey is the deprecated flat _meta key that older hosts
	// read instead of _meta.ui.resourceUri; AddTool writes both.
	LegacyResourceURIKey = "ui/resourceUri"
	// metaKey holds the extension's metadata in a tool's or resource's _meta.
	metaKey = "ui"
)

// Visibility says who may use a tool linked to a view.
type Visibility string

// The visibilities of a tool.
const (
	// Model: the tool is listed to the model, which may call it.
	Model Visibility = "model"
	// App: the view may call the tool (through the host).
	App Visibility = "app"
)

// ToolMeta is a tool's _meta.ui: the view that renders its results and who
// may call it.
type ToolMeta struct {
	// ResourceURI is the ui:// URI of the view ([Resource].URI).
	ResourceURI string `json:"resourceUri,omitempty"`
	// Visibility lists who may use the tool; empty means both [Model] and
	// [App]. [App] alone makes a tool for the view only.
	Visibility []Visibility `json:"visibility,omitempty"`
}

// CSP lists the origins a view needs beyond its own document; the host builds
// the view's Content-Security-Policy from them and allows nothing else.
type CSP struct {
	// ConnectDomains may be fetched (connect-src), e.g. "https://api.example.com".
	ConnectDomains []string `json:"connectDomains,omitempty"`
	// ResourceDomains serve scripts, styles, images, fonts and media.
	ResourceDomains []string `json:"resourceDomains,omitempty"`
	// FrameDomains may be framed (frame-src).
	FrameDomains []string `json:"frameDomains,omitempty"`
	// BaseURIDomains may be the document's base URI (base-uri).
	BaseURIDomains []string `json:"baseUriDomains,omitempty"`
}

// Permissions lists the browser features a view asks for; a host may grant
// them through the iframe's allow attribute, and the view must cope without.
type Permissions struct {
	Camera         bool // camera
	Microphone     bool // microphone
	Geolocation    bool // geolocation
	ClipboardWrite bool // clipboard-write
}

// MarshalJSON writes each requested feature as an empty object, as the
// specification does ({"camera":{}}).
func (p Permissions) MarshalJSON() ([]byte, error) {
	var parts []string
	for _, f := range []struct {
		on   bool
		name string
	}{{p.Camera, "camera"}, {p.Microphone, "microphone"}, {p.Geolocation, "geolocation"}, {p.ClipboardWrite, "clipboardWrite"}} {
		if f.on {
			parts = append(parts, `"`+f.name+`":{}`)
		}
	}
	return []byte("{" + strings.Join(parts, ",") + "}"), nil
}

// UnmarshalJSON reads the features present in the object.
func (p *Permissions) UnmarshalJSON(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	_, p.Camera = m["camera"]
	_, p.Microphone = m["microphone"]
	_, p.Geolocation = m["geolocation"]
	_, p.ClipboardWrite = m["clipboardWrite"]
	return nil
}

// ResourceMeta is a view's _meta.ui: how the host should sandbox and frame it.
type ResourceMeta struct {
	// CSP lists the origins the view needs; nil means none (the host's
	// restrictive default: inline scripts and styles, data: images).
	CSP *CSP `json:"csp,omitempty"`
	// Permissions are the browser features the view asks for.
	Permissions *Permissions `json:"permissions,omitempty"`
	// Domain asks for a dedicated sandbox origin, in a format each host
	// defines.
	Domain string `json:"domain,omitempty"`
	// PrefersBorder asks the host for a visible border and background (true)
	// or none (false); nil lets the host decide.
	PrefersBorder *bool `json:"prefersBorder,omitempty"`
}

// Resource is a view: an HTML5 document served at a ui:// URI.
type Resource struct {
	// URI names the view; it must start with "ui://".
	URI string
	// Name, Title and Description describe the view in resources/list.
	Name, Title, Description string
	// HTML is the document. Leave it empty to read the file Path of FS on
	// each resources/read instead (an embed.FS, or os.DirFS while developing).
	HTML string
	// FS and Path locate the document when HTML is empty.
	FS   fs.FS
	Path string
	// Meta is written as _meta.ui of the listed resource and of its content.
	Meta ResourceMeta
}

// maxHTMLSize bounds a view read from FS: a document past it is refused
// rather than sent to every host.
const maxHTMLSize = 8 << 20

// AddResource registers the view r on s, and declares the extension in the
// server's capabilities ([mcp.Server.AddExtension]). The document (from r.FS, if r.HTML is
// empty) must exist when it is registered; it is served as text of type
// [MIMEType], with r.Meta as _meta.ui.
func AddResource(s *mcp.Server, r *Resource) error {
	if !strings.HasPrefix(r.URI, URIScheme) || len(r.URI) == len(URIScheme) {
		return fmt.Errorf("apps: view %q: the URI must start with %q", r.URI, URIScheme)
	}
	name := r.Name
	if name == "" {
		name = strings.TrimPrefix(r.URI, URIScheme)
	}
	html, fsys, path := r.HTML, r.FS, r.Path
	if html == "" {
		if fsys == nil || path == "" {
			return fmt.Errorf("apps: view %q: no HTML, nor an FS and Path to read it from", r.URI)
		}
		if _, err := readHTML(fsys, path); err != nil {
			return fmt.Errorf("apps: view %q: %w", r.URI, err)
		}
	}
	s.AddExtension(ExtensionID, nil)
	meta := protocol.Meta{metaKey: r.Meta}
	res := &protocol.Resource{URI: r.URI, Name: name, Title: r.Title, Description: r.Description, MimeType: MIMEType, Meta: meta}
	uri := r.URI
	return s.AddResource(res, func(ctx context.Context, req *mcp.ResourceRequest) (*protocol.ReadResourceResult, error) {
		text := html
		if text == "" {
			var err error
			if text, err = readHTML(fsys, path); err != nil {
				return nil, fmt.Errorf("apps: view %q: %w", uri, err)
			}
		}
		return &protocol.ReadResourceResult{Contents: []*protocol.ResourceContents{
			{URI: uri, MimeType: MIMEType, Text: text, Meta: meta},
		}}, nil
	})
}

// readHTML reads the document at path in fsys, refusing one too large.
func readHTML(fsys fs.FS, path string) (string, error) {
	f, err := fsys.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", err
	}
	if st.IsDir() {
		return "", fmt.Errorf("%s is a directory", path)
	}
	if st.Size() > maxHTMLSize {
		return "", fmt.Errorf("%s holds %d bytes, more than the %d a view may", path, st.Size(), maxHTMLSize)
	}
	b, err := fs.ReadFile(fsys, path)
	if err != nil {
		return "", err
	}
	if len(b) > maxHTMLSize {
		return "", fmt.Errorf("%s holds more than the %d bytes a view may", path, maxHTMLSize)
	}
	return string(b), nil
}

// TextFallback is implemented by tool outputs that say in words what their
// view shows: [AddTool] puts the text in the result's content, for the model
// and for hosts without views, instead of the output's JSON.
type TextFallback interface {
	TextFallback() string
}

// AddTool registers a tool (as [mcp.AddTool] does: input and output schemas
// inferred from In and Out) linked to a view by ui. Its Out becomes the
// result's structuredContent, which the host hands to the view; its content is
// Out's [TextFallback] when Out implements it, else Out's JSON. A tool whose
// ui.Visibility lacks [Model] fails (an isError result) for clients that do not
// render views, which do not see it listed either ([Middleware]).
func AddTool[In, Out any](s *mcp.Server, t *protocol.Tool, ui ToolMeta, h mcp.TypedToolHandler[In, Out]) error {
	tool, err := linkTool(t, ui)
	if err != nil {
		return err
	}
	s.AddExtension(ExtensionID, nil)
	appOnly := !slices.Contains(visibility(ui), Model)
	if !reflect.TypeFor[Out]().Implements(reflect.TypeFor[TextFallback]()) {
		return mcp.AddTool(s, tool, func(ctx context.Context, req *mcp.ToolRequest, in In) (Out, error) {
			if appOnly && !requestSupports(&req.Request) {
				var zero Out
				return zero, viewOnly(req.Params.Name)
			}
			return h(ctx, req, in)
		})
	}
	if len(tool.OutputSchema) == 0 {
		if out, err := schema.For[Out](nil); err == nil && schema.IsObjectSchema(out) {
			tool.OutputSchema = out
		}
	}
	return mcp.AddTool(s, tool, func(ctx context.Context, req *mcp.ToolRequest, in In) (*protocol.CallToolResult, error) {
		if appOnly && !requestSupports(&req.Request) {
			return nil, viewOnly(req.Params.Name)
		}
		out, err := h(ctx, req, in)
		if err != nil {
			return nil, err
		}
		return Result(any(out).(TextFallback).TextFallback(), out), nil
	})
}

// AddRawTool is [mcp.Server.AddRawTool] for a tool linked to a view by ui; h
// builds the result itself ([Result] helps).
func AddRawTool(s *mcp.Server, t *protocol.Tool, ui ToolMeta, h mcp.ToolHandler) error {
	tool, err := linkTool(t, ui)
	if err != nil {
		return err
	}
	s.AddExtension(ExtensionID, nil)
	if slices.Contains(visibility(ui), Model) {
		return s.AddRawTool(tool, h)
	}
	return s.AddRawTool(tool, func(ctx context.Context, req *mcp.ToolRequest) (*protocol.CallToolResult, error) {
		if !requestSupports(&req.Request) {
			return protocol.NewToolResultError(viewOnly(req.Params.Name).Error()), nil
		}
		return h(ctx, req)
	})
}

// Result returns a successful tool result whose content is text (what the
// model and a host without views read) and whose structuredContent is data
// (what the view renders).
func Result(text string, data any) *protocol.CallToolResult {
	return &protocol.CallToolResult{Content: []protocol.Content{protocol.NewTextContent(text)}, StructuredContent: data}
}

// linkTool returns a copy of t whose _meta holds ui (and, for older hosts, the
// flat ui/resourceUri key).
func linkTool(t *protocol.Tool, ui ToolMeta) (*protocol.Tool, error) {
	if ui.ResourceURI != "" && !strings.HasPrefix(ui.ResourceURI, URIScheme) {
		return nil, fmt.Errorf("apps: tool %q: the view's URI %q does not start with %q", t.Name, ui.ResourceURI, URIScheme)
	}
	for _, v := range ui.Visibility {
		if v != Model && v != App {
			return nil, fmt.Errorf("apps: tool %q: unknown visibility %q, want %q or %q", t.Name, v, Model, App)
		}
	}
	if ui.ResourceURI == "" && len(ui.Visibility) == 0 {
		return nil, fmt.Errorf("apps: tool %q: ToolMeta names no view and no visibility", t.Name)
	}
	tool := *t
	meta := make(protocol.Meta, len(t.Meta)+2)
	for k, v := range t.Meta {
		meta[k] = v
	}
	meta[metaKey] = ui
	if ui.ResourceURI != "" {
		meta[LegacyResourceURIKey] = ui.ResourceURI
	}
	tool.Meta = meta
	return &tool, nil
}

// visibility returns v's visibility, with the default filled in.
func visibility(ui ToolMeta) []Visibility {
	if len(ui.Visibility) == 0 {
		return []Visibility{Model, App}
	}
	return ui.Visibility
}

// viewOnly is the failure a client that renders no views gets for a tool meant
// for views only (an isError result, as for any tool that fails).
func viewOnly(name string) error {
	return fmt.Errorf("tool %q is for MCP Apps views only, and this client did not declare the %s extension", name, ExtensionID)
}

// requestSupports reports whether the client making r renders views.
func requestSupports(r *mcp.Request) bool {
	settings, _ := r.ClientExtension(ExtensionID)
	return rendersViews(settings)
}

// ClientSupports reports whether caps declare the extension with [MIMEType]
// among their mime types: whether the client renders views.
func ClientSupports(caps protocol.ClientCapabilities) bool {
	return rendersViews(caps.Extensions[ExtensionID])
}

// rendersViews reports whether the extension settings a client declared list
// [MIMEType] among their mime types.
func rendersViews(settings map[string]any) bool {
	switch types := settings["mimeTypes"].(type) {
	case []any:
		for _, t := range types {
			if t == MIMEType {
				return true
			}
		}
	case []string:
		return slices.Contains(types, MIMEType)
	}
	return false
}

// ClientSettings returns the settings a client that renders views declares
// for the extension, {"mimeTypes":["text/html;profile=mcp-app"]}: put them in
// [mcp.ClientOptions].Extensions under [ExtensionID].
func ClientSettings() map[string]any { return map[string]any{"mimeTypes": []string{MIMEType}} }
