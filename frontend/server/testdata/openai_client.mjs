// Drives toolscope's /v1 API with the official openai npm client, as an
// app would. OPENAI_BASE_URL and MODEL say where; it prints one JSON object
// with what each scenario saw, for openai_client_test.go to check.
import OpenAI from "openai";

const client = new OpenAI({ baseURL: process.env.OPENAI_BASE_URL, apiKey: process.env.OPENAI_API_KEY || "none", maxRetries: 0 });
const model = process.env.MODEL;
const ask = { role: "user", content: process.env.ASK || "Email bob@example.com that I will be 10 minutes late to the standup" };
const tools = [{
  type: "function",
  function: {
    name: "send_mail",
    description: "Send an email.",
    parameters: {
      type: "object",
      properties: { to: { type: "string" }, subject: { type: "string" }, body: { type: "string" } },
      required: ["to", "subject", "body"],
    },
  },
}];

// collect reads a stream into the message a client would assemble.
async function collect(stream) {
  const msg = { role: "", content: "", tool_calls: [] };
  let finish = null, usage = null, toolscope = null, chunks = 0;
  for await (const chunk of stream) {
    chunks++;
    if (chunk.usage) usage = chunk.usage;
    if (chunk.toolscope) toolscope = chunk.toolscope;
    for (const choice of chunk.choices) {
      const d = choice.delta;
      if (d.role) msg.role = d.role;
      if (d.content) msg.content += d.content;
      for (const tc of d.tool_calls || []) {
        const call = (msg.tool_calls[tc.index] ||= { id: "", type: "function", function: { name: "", arguments: "" } });
        if (tc.id) call.id = tc.id;
        if (tc.function?.name) call.function.name += tc.function.name;
        if (tc.function?.arguments) call.function.arguments += tc.function.arguments;
      }
      if (choice.finish_reason) finish = choice.finish_reason;
    }
  }
  if (msg.tool_calls.length === 0) delete msg.tool_calls;
  return { message: msg, finish, usage, toolscope, chunks };
}

async function complete(body, stream) {
  if (stream) return collect(await client.chat.completions.create({ ...body, model, stream: true, stream_options: { include_usage: true } }));
  const r = await client.chat.completions.create({ ...body, model });
  return { message: r.choices[0].message, finish: r.choices[0].finish_reason, usage: r.usage, toolscope: r.toolscope };
}

// clientLoop is the two-step loop an agent framework runs: the model
// calls, the client runs the call and sends the result back.
async function clientLoop(stream) {
  const first = await complete({ messages: [ask], tools }, stream);
  const steps = [first];
  if (first.finish === "tool_calls") {
    const call = first.message.tool_calls[0];
    const args = JSON.parse(call.function.arguments);
    const messages = [ask, { role: "assistant", content: first.message.content || null, tool_calls: first.message.tool_calls },
      { role: "tool", tool_call_id: call.id, content: JSON.stringify({ sent: true, to: args.to }) }];
    steps.push(await complete({ messages, tools }, stream));
  }
  return steps;
}

async function failure(fn) {
  try {
    await fn();
    return { status: 0 };
  } catch (e) {
    return { status: e.status, type: e.type ?? e.error?.type, param: e.param ?? e.error?.param, code: e.code ?? e.error?.code, message: e.message };
  }
}

const out = {};
out.models = (await client.models.list()).data.map((m) => m.id);
// Without tools toolscope runs its own; OWN_ASKS, split at "|", are the
// requests to send that way (the request to email Bob by default).
out.own_tools = [];
for (const content of (process.env.OWN_ASKS || ask.content).split("|")) {
  out.own_tools.push(await complete({ messages: [{ role: "user", content }] }, false));
}
out.client_tools = await clientLoop(false);
out.client_tools_streamed = await clientLoop(true);
out.tool_choice_none = await complete({ messages: [ask], tools, tool_choice: "none" }, true);
out.unknown_model = await failure(() => client.chat.completions.create({ model: "no-such-model", messages: [ask] }));
out.n2 = await failure(() => client.chat.completions.create({ model, n: 2, messages: [ask] }));
const malformed = await fetch(process.env.OPENAI_BASE_URL + "/chat/completions", {
  method: "POST",
  headers: { "Content-Type": "application/json", Authorization: "Bearer " + (process.env.OPENAI_API_KEY || "none") },
  body: '{"model": "' + model + '", "messages": [',
});
out.malformed = { status: malformed.status, ...(await malformed.json()).error };
if (process.env.LIMITS) {
  // A request the size a coding agent sends, about 1 MB: a long system
  // prompt, 20 tools, and a history in which a tool read a large file.
  const workspaceTools = Array.from({ length: 19 }, (_, i) => ({
    type: "function",
    function: {
      name: `workspace_tool_${i}`,
      description: "Does one thing in the workspace. ".repeat(20),
      parameters: { type: "object", properties: { path: { type: "string" }, options: { type: "object", properties: { recursive: { type: "boolean" } } } }, required: ["path"] },
    },
  }));
  const history = [
    { role: "system", content: "You are a careful assistant working in the user's repository. ".repeat(2000) },
    { role: "user", content: "Read server.go" },
    { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "workspace_tool_0", arguments: '{"path": "server.go"}' } }] },
    { role: "tool", tool_call_id: "call_1", content: "func handler(w http.ResponseWriter, r *http.Request) { /* … */ }\n".repeat(14000) },
    { role: "assistant", content: "server.go holds the HTTP handlers." },
    ask,
  ];
  const agentSized = { messages: history, tools: [...tools, ...workspaceTools] };
  out.agent_sized_bytes = JSON.stringify(agentSized).length;
  out.agent_sized = await complete(agentSized, false);
  // Past the 8 MiB the server takes by default.
  out.too_large = await failure(() => client.chat.completions.create({ model, messages: [{ role: "user", content: "a".repeat(9 << 20) }] }));
}
console.log(JSON.stringify(out));
