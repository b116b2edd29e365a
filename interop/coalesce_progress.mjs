#!/usr/bin/env node
// coalesce_progress.mjs runs a stdio MCP server and relays its stdout to ours
// byte for byte and in order, but holds each notifications/progress line back
// until the next other line, and writes them together in one write: the client
// reads progress in the same chunk as the response that follows it, as it may
// when it is slow to read. stdin and stderr are the server's own.
//
//   node coalesce_progress.mjs <server command> [args...]
import { spawn } from "node:child_process";

const [command, ...args] = process.argv.slice(2);
if (!command) {
  process.stderr.write("usage: node coalesce_progress.mjs <server command> [args...]\n");
  process.exit(2);
}
const child = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"] });
process.stdin.pipe(child.stdin);
// A closed stdin ends the server as it would without the relay.
child.stdin.on("error", () => {});

let pending = ""; // an incomplete line
let held = ""; // progress lines not yet written
child.stdout.setEncoding("utf8");
child.stdout.on("data", (data) => {
  pending += data;
  for (let nl = pending.indexOf("\n"); nl >= 0; nl = pending.indexOf("\n")) {
    const line = pending.slice(0, nl + 1);
    pending = pending.slice(nl + 1);
    if (line.includes('"notifications/progress"')) {
      held += line;
      continue;
    }
    process.stdout.write(held + line);
    held = "";
  }
});
child.on("exit", (code, signal) => {
  process.stdout.write(held + pending, () => process.exit(code ?? (signal ? 1 : 0)));
});
