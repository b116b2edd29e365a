// http_loopback.mjs is preloaded (node --import) into the npm HTTP servers the interop
// tests start, such as `mcp-server-everything streamableHttp`, which listen on
// process.env.PORT on every interface. It makes every TCP listen of the process bind
// to 127.0.0.1 whatever host was asked for, so that the tests never open a port
// beyond loopback, and announces the address actually bound on stderr:
//
//   mcpkit-interop: listening on 127.0.0.1:PORT
//
// With PORT=0 the system picks a free port, and the test learns it from that line,
// which is also how it knows the server is ready: no port to guess, nothing to poll.
import net from "node:net";

const LOOPBACK = "127.0.0.1";
const listen = net.Server.prototype.listen;

// isPort reports whether a listen argument is a TCP port (a number or a numeric
// string) rather than a pipe path.
function isPort(v) {
  return typeof v === "number" || (typeof v === "string" && /^\d+$/.test(v));
}

net.Server.prototype.listen = function (...args) {
  if (isPort(args[0])) {
    // listen(port[, host][, backlog][, callback]): force the host.
    if (typeof args[1] === "string") {
      args[1] = LOOPBACK;
    } else {
      args.splice(1, 0, LOOPBACK);
    }
  } else if (args[0] && typeof args[0] === "object" && "port" in args[0] && args[0].path === undefined) {
    // listen(options[, callback]) with a TCP port.
    args[0] = { ...args[0], host: LOOPBACK };
  } else if (args.length === 0 || typeof args[0] === "function") {
    // listen([callback]): a random port on every interface; make it loopback.
    args.unshift(0, LOOPBACK);
  }
  this.once("listening", () => {
    const addr = this.address();
    if (addr && typeof addr === "object") {
      process.stderr.write(`mcpkit-interop: listening on ${addr.address}:${addr.port}\n`);
    }
  });
  return listen.apply(this, args);
};
