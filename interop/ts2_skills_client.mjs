#!/usr/bin/env node
// ts2_skills_client.mjs reads an mcpkit skills server with the official
// TypeScript SDK 2.x client (@modelcontextprotocol/client and its SkillsClient,
// which verifies sizes, digests and frontmatter), and calls the server's custom
// method acme/echo. It prints ONE JSON object with what it observed:
//
//   node ts2_skills_client.mjs <auto|legacy> <MCP endpoint URL>
//
// auto detects the era (2026-07-28 against mcpkit); legacy initializes.
// Each step is recorded as {ok, value} or {ok: false, error}; the exit status is
// 0 when the report was written, 2 on a usage error.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import * as z from "zod";

const REQUEST_TIMEOUT_MS = 15000;

async function step(report, name, f) {
  try {
    report[name] = { ok: true, value: await f() };
  } catch (err) {
    report[name] = { ok: false, error: String(err?.message ?? err), code: err?.code, reason: err?.reason };
  }
}

async function main() {
  const [negotiation, url] = process.argv.slice(2);
  if (!url || (negotiation !== "auto" && negotiation !== "legacy")) {
    process.stderr.write("usage: node ts2_skills_client.mjs <auto|legacy> <url>\n");
    process.exit(2);
  }
  const client = new Client(
    { name: "ts2-skills-client", version: "2.4.0" },
    { capabilities: {}, versionNegotiation: negotiation === "auto" ? { mode: "auto" } : undefined },
  );
  const report = {};
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  report.protocolVersion = client.getNegotiatedProtocolVersion?.() ?? null;
  const skills = new SkillsClient(client);
  report.supported = skills.supported;
  report.directoryRead = skills.directoryRead;
  const opts = { timeout: REQUEST_TIMEOUT_MS };
  await step(report, "list", async () => {
    const all = [];
    let cursor;
    do {
      const page = await skills.list(cursor ? { cursor } : {}, opts);
      all.push(...page.skills.map((s) => s.uri));
      if (page.invalid.length > 0) throw new Error(`invalid entries: ${JSON.stringify(page.invalid)}`);
      cursor = page.nextCursor;
    } while (cursor);
    return all;
  });
  let pdf;
  await step(report, "get", async () => {
    pdf = (await skills.get("skill://pdf-processing/SKILL.md", opts)).skill;
    return { uri: pdf.uri, frontmatter: pdf.frontmatter, files: pdf.resources.length };
  });
  await step(report, "readSkill", async () => {
    const f = await skills.read(pdf, undefined, opts);
    return { verified: f.verified, name: f.frontmatter?.name, bytes: f.bytes.length };
  });
  await step(report, "readForms", async () => {
    const f = await skills.read(pdf, "references/FORMS.md", opts);
    return { verified: f.verified, text: f.text };
  });
  await step(report, "readDirectory", async () => {
    const d = await skills.readDirectory("skill://pdf-processing", opts);
    return d.resources.map((r) => `${r.uri} ${r.mimeType}`).sort();
  });
  await step(report, "getUnknown", async () => skills.get("skill://nope/SKILL.md", opts));
  const Echo = z.object({ echo: z.string(), version: z.string() });
  await step(report, "echo", async () =>
    client.request({ method: "acme/echo", params: { text: "from ts" } }, Echo, opts),
  );
  await step(report, "echoWrongParams", async () =>
    client.request({ method: "acme/echo", params: { text: 5 } }, Echo, opts),
  );
  await client.close();
  process.stdout.write(JSON.stringify(report) + "\n");
}

main().catch((err) => {
  process.stdout.write(JSON.stringify({ fatal: String(err?.stack ?? err) }) + "\n");
});
