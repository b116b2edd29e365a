package registry_test

import (
	"fmt"
	"log"
	"strings"

	"github.com/mcpkit/mcpkit/registry"
)

// A server.json read, validated against the official schema, and its npm
// package turned into the command line a host runs.
func ExampleParse() {
	doc := `{
	  "$schema": "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",
	  "name": "io.github.user/local-weather",
	  "description": "Local MCP server distributed as an npm package.",
	  "version": "1.0.0",
	  "packages": [{
	    "registryType": "npm",
	    "identifier": "@modelcontextprotocol/server-weather",
	    "version": "1.0.0",
	    "transport": {"type": "stdio"},
	    "environmentVariables": [{"name": "API_KEY", "isSecret": true, "isRequired": true}]
	  }]
	}`
	entry, err := registry.Parse([]byte(doc))
	if err != nil {
		log.Fatal(err)
	}
	pkg := &entry.Server.Packages[0]
	for _, n := range pkg.Needs() {
		fmt.Printf("needs %s %s (secret: %v)\n", n.Kind, n.Name, n.Input.IsSecret)
	}
	launch, err := pkg.Launch(registry.Values{Env: map[string]string{"API_KEY": "from-a-flag"}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(launch.Command, strings.Join(launch.Args, " "))
	// Output:
	// needs env API_KEY (secret: true)
	// npx -y @modelcontextprotocol/server-weather@1.0.0
}

// The server.json of a Go server built with mcpkit, published as a module.
func ExampleNewGoServer() {
	s, err := registry.NewGoServer(registry.GoServer{
		Module:      "github.com/example/weather-mcp",
		Version:     "v1.0.0",
		Description: "Weather forecasts over MCP",
	})
	if err != nil {
		log.Fatal(err)
	}
	data, err := s.Marshal() // checked against the schema
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(string(data))
	// Output:
	// {
	//   "$schema": "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",
	//   "name": "io.github.example/weather-mcp",
	//   "description": "Weather forecasts over MCP",
	//   "version": "1.0.0",
	//   "repository": {
	//     "url": "https://github.com/example/weather-mcp",
	//     "source": "github"
	//   },
	//   "packages": [
	//     {
	//       "registryType": "go",
	//       "identifier": "github.com/example/weather-mcp",
	//       "version": "v1.0.0",
	//       "transport": {
	//         "type": "stdio"
	//       }
	//     }
	//   ]
	// }
}
