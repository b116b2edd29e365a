#!/usr/bin/env node
// ts_oauth_client.mjs connects the official TypeScript SDK client to an
// OAuth-protected MCP server, authorizes through the SDK's OAuthClientProvider
// interface, calls a tool and prints ONE JSON object describing what happened.
//
//   node ts_oauth_client.mjs <MCP endpoint URL> <tool name>
//
// The authorization server must approve at once (redirect to the client
// without a login page), as mcpkit's auth/authtest server does: the script plays
// the browser by GETting the authorization URL without following the redirect
// and reading the code from its Location. It is run by
// TestTypeScriptOAuthClientAgainstMcpkit (ts_oauth_test.go), which asserts on
// the JSON.
//
// Steps: connect without a token (the SDK must throw UnauthorizedError after
// handing the authorization URL to the provider), the "browser", finishAuth
// with the code (token request), a second connect with the token, tools/list
// and tools/call. Every HTTP exchange the SDK makes is recorded (method, URL,
// status). The exit status is 0 when every step ran, 1 otherwise, 2 on a usage
// error.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";

// REDIRECT is the registered redirect URI. Nothing listens there: the script
// reads the authorization server's redirect itself.
const REDIRECT = "http://127.0.0.1:9/callback";
const REQUEST_TIMEOUT_MS = 15000;

const [url, tool] = process.argv.slice(2);
if (!url || !tool) {
  console.error("usage: node ts_oauth_client.mjs <MCP endpoint URL> <tool name>");
  process.exit(2);
}

// MemoryProvider keeps the client registration, the PKCE verifier and the
// tokens in memory, and records the authorization URL it is asked to open.
class MemoryProvider {
  constructor() {
    this.client = undefined;
    this.savedTokens = undefined;
    this.verifier = undefined;
    this.authorizationUrl = undefined;
  }
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata() {
    return {
      client_name: "mcpkit interop (TypeScript SDK)",
      redirect_uris: [REDIRECT],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info) {
    this.client = info;
  }
  tokens() {
    return this.savedTokens;
  }
  saveTokens(tokens) {
    this.savedTokens = tokens;
  }
  redirectToAuthorization(authorizationUrl) {
    this.authorizationUrl = authorizationUrl;
  }
  saveCodeVerifier(verifier) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

const report = { exchanges: [], steps: {} };

// recordingFetch records each exchange's method, URL and status.
async function recordingFetch(input, init = {}) {
  const u = input instanceof Request ? input.url : String(input);
  const method = (init.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase();
  const ex = { method, url: u };
  report.exchanges.push(ex);
  const resp = await fetch(input, init);
  ex.status = resp.status;
  const challenge = resp.headers.get("www-authenticate");
  if (challenge) ex.challenge = challenge;
  return resp;
}

function errorOf(e) {
  return { name: e?.name ?? "Error", message: String(e?.message ?? e) };
}

async function step(name, fn) {
  try {
    const value = await fn();
    report.steps[name] = { ok: true, value: value ?? null };
    return value;
  } catch (e) {
    report.steps[name] = { ok: false, error: errorOf(e) };
    throw e;
  }
}

const provider = new MemoryProvider();
const newTransport = () =>
  new StreamableHTTPClientTransport(new URL(url), { authProvider: provider, fetch: recordingFetch });
const newClient = () => new Client({ name: "mcpkit-interop-oauth", version: "1.0.0" });

let exit = 0;
try {
  const first = newTransport();
  await step("unauthorized", async () => {
    try {
      await newClient().connect(first, { timeout: REQUEST_TIMEOUT_MS });
    } catch (e) {
      if (e instanceof UnauthorizedError && provider.authorizationUrl) {
        return { authorizationUrl: provider.authorizationUrl.href };
      }
      throw e;
    }
    throw new Error("connected without authorizing");
  });
  const code = await step("browser", async () => {
    const resp = await fetch(provider.authorizationUrl, { redirect: "manual" });
    const location = resp.headers.get("location");
    if (resp.status !== 302 || !location) {
      throw new Error(`the authorization endpoint answered ${resp.status}: ${await resp.text()}`);
    }
    const back = new URL(location);
    return { status: resp.status, redirect: back.origin + back.pathname, code: back.searchParams.get("code"), iss: back.searchParams.get("iss") };
  });
  await step("finishAuth", async () => {
    await first.finishAuth(code.code);
    const t = provider.tokens();
    return { tokenType: t?.token_type, scope: t?.scope ?? null, hasAccessToken: Boolean(t?.access_token) };
  });
  const client = newClient();
  await step("connect", async () => {
    await client.connect(newTransport(), { timeout: REQUEST_TIMEOUT_MS });
    return { serverInfo: client.getServerVersion() };
  });
  await step("listTools", async () => {
    const res = await client.listTools(undefined, { timeout: REQUEST_TIMEOUT_MS });
    return { names: res.tools.map((t) => t.name) };
  });
  await step("callTool", async () => {
    const res = await client.callTool({ name: tool, arguments: {} }, undefined, { timeout: REQUEST_TIMEOUT_MS });
    return { isError: Boolean(res.isError), text: res.content?.[0]?.text ?? null };
  });
  await client.close();
} catch {
  exit = 1;
}
process.stdout.write(JSON.stringify(report) + "\n");
process.exit(exit);
