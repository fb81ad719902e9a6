// An MCP client on the official TypeScript SDK, for the bridge's tests:
//
//	node client.mjs URL http|sse
//
// connects to the bridged server-everything at URL, lists its tools,
// calls echo and the long-running operation (with progress), answers the
// server's roots/list request, hears its tools/list_changed, ends the
// session, and prints what it saw as one JSON object.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  LATEST_PROTOCOL_VERSION,
  ListRootsRequestSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";

const [url, transportName] = process.argv.slice(2);
setTimeout(() => {
  console.error("client.mjs: timed out");
  process.exit(1);
}, 40_000).unref();

// heard is a promise of true, kept once called is called.
function heard() {
  let called;
  const promise = new Promise((resolve) => {
    called = () => resolve(true);
  });
  return { promise, called };
}

// within waits for promise for up to 10 seconds, and says whether it came.
function within(promise) {
  return Promise.race([promise, new Promise((resolve) => setTimeout(() => resolve(false), 10_000).unref())]);
}

const client = new Client(
  { name: "toolscope-bridge-test", version: "1.0.0" },
  { capabilities: { roots: { listChanged: true } } },
);
const rootsListed = heard();
client.setRequestHandler(ListRootsRequestSchema, async () => {
  rootsListed.called();
  return { roots: [{ uri: "file:///data", name: "data" }] };
});
const listChanged = heard();
client.setNotificationHandler(ToolListChangedNotificationSchema, () => listChanged.called());

const transport =
  transportName === "sse"
    ? new SSEClientTransport(new URL(url))
    : new StreamableHTTPClientTransport(new URL(url));
await client.connect(transport);

const { tools } = await client.listTools();
const echo = await client.callTool({ name: "echo", arguments: { message: "hello" } });
const progress = [];
const long = await client.callTool(
  { name: "trigger-long-running-operation", arguments: { duration: 0.2, steps: 2 } },
  undefined,
  { onprogress: (p) => progress.push(p) },
);

const seen = {
  server: client.getServerVersion()?.name,
  protocolVersion: transport.protocolVersion ?? null,
  latestProtocolVersion: LATEST_PROTOCOL_VERSION,
  tools: tools.map((t) => t.name),
  echo: echo.content[0].text,
  long: long.content[0].text,
  progress,
  rootsListed: await within(rootsListed.promise),
  listChanged: await within(listChanged.promise),
};
if (transportName !== "sse") {
  await transport.terminateSession();
}
await client.close();
console.log(JSON.stringify(seen));
