// The tools explorer. A small MCP client over streamable HTTP (JSON-RPC POSTs whose answers
// come as JSON or as server-sent events), a form built from each tool's input schema, and the
// result text and isError flag exactly as the server sent them.
"use strict";

const $ = (id) => document.getElementById(id);

// One MCP session on one endpoint: initialize, then requests carrying Mcp-Session-Id.
class McpSession {
  constructor(url) {
    this.url = url;
    this.id = null;
    this.protocolVersion = null;
    this.nextId = 1;
    this.listChanged = false;
  }

  headers() {
    const headers = {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
    };
    if (this.id) headers["Mcp-Session-Id"] = this.id;
    if (this.protocolVersion) headers["MCP-Protocol-Version"] = this.protocolVersion;
    return headers;
  }

  async open() {
    const init = await this.request("initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "vakra-explorer", version: "1" },
    });
    this.protocolVersion = init.protocolVersion;
    await this.notify("notifications/initialized");
    return init;
  }

  async notify(method, params) {
    const body = { jsonrpc: "2.0", method };
    if (params) body.params = params;
    const response = await fetch(this.url, {
      method: "POST",
      headers: this.headers(),
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${method}: HTTP ${response.status} ${await response.text()}`);
    if (response.body) await response.body.cancel();
  }

  // Sends a request and returns its result; a JSON-RPC error becomes a thrown RpcError.
  async request(method, params) {
    const id = this.nextId++;
    const response = await fetch(this.url, {
      method: "POST",
      headers: this.headers(),
      body: JSON.stringify({ jsonrpc: "2.0", id, method, params }),
    });
    const sessionId = response.headers.get("Mcp-Session-Id");
    if (sessionId) this.id = sessionId;
    if (!response.ok) throw new Error(`${method}: HTTP ${response.status} ${await response.text()}`);
    const type = response.headers.get("Content-Type") || "";
    const message = type.includes("text/event-stream")
      ? await this.readEvents(response, id)
      : await response.json();
    if (message.error) throw new RpcError(message.error);
    return message.result;
  }

  // Reads `data:` events until the answer to `id` arrives, noting list_changed notifications.
  async readEvents(response, id) {
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (value) buffer += decoder.decode(value, { stream: true });
      buffer = buffer.replace(/\r\n?/g, "\n");
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = event
          .split("\n")
          .filter((line) => line.startsWith("data:"))
          .map((line) => line.slice(5).replace(/^ /, ""))
          .join("\n");
        if (!data) continue;
        const message = JSON.parse(data);
        if (message.method === "notifications/tools/list_changed") this.listChanged = true;
        if (message.id === id && ("result" in message || "error" in message)) {
          reader.cancel().catch(() => {});
          return message;
        }
      }
      if (done) throw new Error("the event stream ended without an answer");
    }
  }

  async close() {
    if (!this.id) return;
    try {
      await fetch(this.url, { method: "DELETE", headers: this.headers() });
    } catch (_) {
      // the server drops idle sessions anyway
    }
  }
}

class RpcError extends Error {
  constructor(error) {
    super(`JSON-RPC error ${error.code}: ${error.message}`);
    this.rpc = error;
  }
}

const state = {
  listing: null,
  session: null,
  tools: [],
  selected: null,
  universes: [],
};

function setStatus(text, isError = false) {
  $("status").textContent = text;
  $("status").classList.toggle("error", isError);
}

function setBusy(busy) {
  document.body.dataset.state = busy ? "busy" : "idle";
  $("open-session").disabled = busy;
  $("call").disabled = busy;
}

// ---- schema → form ----

function resolve(schema, root) {
  let s = schema || {};
  for (let depth = 0; s.$ref && depth < 10; depth++) {
    const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(s.$ref);
    const target = match && root[match[1]] && root[match[1]][match[2]];
    if (!target) break;
    const { $ref, ...rest } = s;
    s = { ...target, ...rest };
  }
  return s;
}

// The widget a property gets: enum, boolean, integer, number, string, or json (anything else).
function kindOf(schema, root) {
  const s = resolve(schema, root);
  if (Array.isArray(s.enum)) return { kind: "enum", values: s.enum };
  if (s.const !== undefined) return { kind: "enum", values: [s.const] };
  const alternatives = (s.anyOf || s.oneOf || [])
    .map((a) => resolve(a, root))
    .filter((a) => a.type !== "null");
  if (alternatives.length === 1) return kindOf(alternatives[0], root);
  if (alternatives.length > 1) return { kind: "mixed" };
  const types = (Array.isArray(s.type) ? s.type : [s.type]).filter((t) => t && t !== "null");
  if (types.length === 1 && ["boolean", "integer", "number", "string"].includes(types[0])) {
    return { kind: types[0] };
  }
  return { kind: "json" };
}

function describeType(schema, root) {
  const s = resolve(schema, root);
  if (Array.isArray(s.enum)) return `enum${s.type ? ` (${s.type})` : ""}`;
  if (s.const !== undefined) return `const ${JSON.stringify(s.const)}`;
  if (s.type) return Array.isArray(s.type) ? s.type.join(" | ") : s.type;
  const alternatives = s.anyOf || s.oneOf;
  if (alternatives) return alternatives.map((a) => describeType(a, root)).join(" | ");
  return "any";
}

function buildForm(tool) {
  const schema = tool.inputSchema || {};
  const required = new Set(schema.required || []);
  const fields = $("fields");
  fields.replaceChildren();
  const properties = Object.entries(schema.properties || {});
  if (properties.length === 0) {
    const p = document.createElement("p");
    p.className = "note";
    p.textContent = "This tool takes no arguments.";
    fields.append(p);
  }
  for (const [name, property] of properties) {
    const kind = kindOf(property, schema);
    const resolved = resolve(property, schema);
    const row = document.createElement("div");
    row.className = "field";
    row.dataset.kind = kind.kind;
    row.dataset.name = name;
    const label = document.createElement("label");
    label.htmlFor = `arg-${name}`;
    label.textContent = name;
    if (required.has(name)) {
      const star = document.createElement("span");
      star.className = "required";
      star.textContent = " *";
      label.append(star);
    }
    const small = document.createElement("small");
    small.textContent = describeType(property, schema);
    label.append(small);
    let input;
    if (kind.kind === "enum" || kind.kind === "boolean") {
      input = document.createElement("select");
      const values = kind.kind === "enum" ? kind.values : [true, false];
      input.append(new Option("(not sent)", ""));
      for (const v of values) input.append(new Option(String(v), JSON.stringify(v)));
    } else if (kind.kind === "json" || kind.kind === "mixed") {
      input = document.createElement("textarea");
      input.placeholder = kind.kind === "mixed" ? "JSON, or plain text for a string" : "JSON";
    } else {
      input = document.createElement("input");
      input.type = kind.kind === "string" ? "text" : "number";
      if (kind.kind === "integer") input.step = "1";
      if (kind.kind === "number") input.step = "any";
      if (name === "tool_universe_id" && state.universes.length) {
        input.setAttribute("list", "universe-ids");
      }
    }
    input.id = `arg-${name}`;
    input.name = `arg-${name}`;
    input.addEventListener("input", updatePreview);
    input.addEventListener("change", updatePreview);
    row.append(label, input);
    const hint = resolved.description || property.description;
    if (hint || resolved.default !== undefined) {
      const p = document.createElement("div");
      p.className = "hint";
      p.textContent = [hint, resolved.default !== undefined ? `default: ${JSON.stringify(resolved.default)}` : ""]
        .filter(Boolean)
        .join(" · ");
      row.append(p);
    }
    fields.append(row);
  }
  updatePreview();
}

// The arguments object the form describes; empty fields are not sent.
function collectArguments() {
  const args = {};
  const problems = [];
  for (const row of $("fields").querySelectorAll(".field")) {
    const input = row.querySelector("input, select, textarea");
    const raw = input.value;
    row.classList.remove("invalid");
    if (raw.trim() === "" && row.dataset.kind !== "string") continue;
    if (raw === "") continue;
    const name = row.dataset.name;
    switch (row.dataset.kind) {
      case "string":
        args[name] = raw;
        break;
      case "integer":
      case "number": {
        const n = Number(raw);
        if (!Number.isFinite(n)) {
          row.classList.add("invalid");
          problems.push(`${name}: not a number`);
        } else args[name] = n;
        break;
      }
      case "enum":
      case "boolean":
        args[name] = JSON.parse(raw);
        break;
      case "mixed":
        try {
          args[name] = JSON.parse(raw);
        } catch (_) {
          args[name] = raw;
        }
        break;
      default:
        try {
          args[name] = JSON.parse(raw);
        } catch (e) {
          row.classList.add("invalid");
          problems.push(`${name}: not JSON (${e.message})`);
        }
    }
  }
  return { args, problems };
}

function updatePreview() {
  const { args, problems } = collectArguments();
  $("args-preview").textContent = problems.length
    ? problems.join("\n")
    : JSON.stringify(args, null, 2);
}

// ---- tools ----

function renderTools(previous) {
  const list = $("tools");
  list.replaceChildren();
  for (const tool of state.tools) {
    const li = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = tool.name;
    button.dataset.tool = tool.name;
    button.title = tool.description || "";
    button.setAttribute("aria-current", String(tool.name === state.selected));
    button.addEventListener("click", () => selectTool(tool.name));
    li.append(button);
    list.append(li);
  }
  $("tool-count").textContent = `(${state.tools.length})`;
  const names = state.tools.map((t) => t.name).join("\n");
  const note = $("tools-note");
  note.hidden = previous === undefined || previous === names;
  note.textContent = "The tool list changed after the last call.";
}

function selectTool(name) {
  const tool = state.tools.find((t) => t.name === name);
  state.selected = tool ? name : null;
  for (const b of $("tools").querySelectorAll("button")) {
    b.setAttribute("aria-current", String(b.dataset.tool === state.selected));
  }
  $("tool").hidden = !tool;
  if (!tool) return;
  $("tool-name").textContent = tool.name;
  $("tool-description").textContent = tool.description || "(no description)";
  $("tool-schema").textContent = JSON.stringify(tool.inputSchema, null, 2);
  buildForm(tool);
}

async function refreshTools() {
  const previous = state.tools.map((t) => t.name).join("\n");
  const tools = [];
  let cursor;
  do {
    const result = await state.session.request("tools/list", cursor ? { cursor } : {});
    tools.push(...result.tools);
    cursor = result.nextCursor;
  } while (cursor);
  state.tools = tools;
  renderTools(previous);
  // keep the form (and what was typed) when the tool is still listed with the same schema
  const still = tools.find((t) => t.name === state.selected);
  if (!still) selectTool(null);
}

// ---- sessions and calls ----

function currentEntry() {
  const capability = Number($("capability").value);
  return state.listing.capabilities.find((c) => c.capability === capability);
}

function fillDomains() {
  const entry = currentEntry();
  const select = $("domain");
  select.replaceChildren();
  for (const d of entry ? entry.domains : []) select.append(new Option(d.name, d.name));
  if (entry && entry.problem) setStatus(`capability ${entry.capability}: ${entry.problem}`, true);
  else if (entry && entry.domains.length === 0) setStatus(`capability ${entry.capability} has no domains in this data root`, true);
  else setStatus("Choose a domain and open a session.");
}

function universeList(entry, domain) {
  const d = entry.domains.find((x) => x.name === domain);
  state.universes = (d && d.universes) || [];
  let list = $("universe-ids");
  if (!list) {
    list = document.createElement("datalist");
    list.id = "universe-ids";
    document.body.append(list);
  }
  list.replaceChildren(...state.universes.map((u) => new Option(u)));
}

async function openSession() {
  const entry = currentEntry();
  const domain = $("domain").value;
  if (!entry || !domain) return;
  setBusy(true);
  try {
    if (state.session) await state.session.close();
    universeList(entry, domain);
    const path = `/mcp/${entry.capability}/${encodeURIComponent(domain)}`;
    state.session = new McpSession(path);
    state.tools = [];
    state.selected = null;
    $("tool").hidden = true;
    $("result").hidden = true;
    $("history").replaceChildren();
    $("history-box").hidden = true;
    $("endpoint").textContent = path;
    $("session-id").textContent = "opening…";
    const init = await state.session.open();
    $("session-id").textContent = state.session.id || "(none)";
    await refreshTools();
    setStatus(`Connected to ${init.serverInfo ? init.serverInfo.name : "the server"} (protocol ${init.protocolVersion}).`);
  } catch (e) {
    $("session-id").textContent = "none";
    setStatus(e.message, true);
  } finally {
    setBusy(false);
  }
}

function showResult(text, isError, flagText) {
  $("result").hidden = false;
  $("result-text").textContent = text;
  const flag = $("result-flag");
  flag.textContent = flagText || `isError: ${isError}`;
  flag.className = `flag ${isError ? "error" : "ok"}`;
  flag.dataset.isError = String(isError);
}

function addHistory(tool, args, text, isError) {
  const li = document.createElement("li");
  const code = document.createElement("code");
  code.textContent = `${tool}(${JSON.stringify(args)})`;
  const summary = document.createElement("span");
  summary.className = isError ? "error" : "";
  const flat = text.replace(/\s+/g, " ").trim();
  summary.textContent = ` → ${isError ? "error: " : ""}${flat.length > 100 ? flat.slice(0, 100) + "…" : flat}`;
  li.append(code, summary);
  $("history").append(li);
  $("history-box").hidden = false;
}

async function callTool(event) {
  event.preventDefault();
  if (!state.session || !state.selected) return;
  const { args, problems } = collectArguments();
  if (problems.length) {
    setStatus(problems.join("; "), true);
    return;
  }
  const tool = state.selected;
  setBusy(true);
  setStatus(`Calling ${tool}…`);
  try {
    const started = performance.now();
    let text;
    let isError;
    try {
      const result = await state.session.request("tools/call", { name: tool, arguments: args });
      text = (result.content || [])
        .filter((c) => c.type === "text")
        .map((c) => c.text)
        .join("\n");
      isError = result.isError === true;
      showResult(text, isError);
    } catch (e) {
      if (!(e instanceof RpcError)) throw e;
      text = e.message;
      isError = true;
      showResult(text, true, "JSON-RPC error");
    }
    addHistory(tool, args, text, isError);
    const ms = Math.round(performance.now() - started);
    // capability 1 changes its tools after get_data: list them again, as an agent would
    await refreshTools();
    setStatus(`${tool} answered in ${ms} ms.`);
  } catch (e) {
    setStatus(e.message, true);
  } finally {
    setBusy(false);
  }
}

async function start() {
  try {
    const response = await fetch("api/domains");
    if (!response.ok) throw new Error(`api/domains: HTTP ${response.status}`);
    state.listing = await response.json();
    const select = $("capability");
    for (const c of state.listing.capabilities) {
      select.append(new Option(`${c.capability} · ${c.title}`, String(c.capability)));
    }
    select.value = "2";
    select.addEventListener("change", fillDomains);
    fillDomains();
    $("open-session").addEventListener("click", openSession);
    $("args-form").addEventListener("submit", callTool);
    window.addEventListener("pagehide", () => state.session && state.session.close());
  } catch (e) {
    setStatus(e.message, true);
  } finally {
    setBusy(false);
  }
}

start();
