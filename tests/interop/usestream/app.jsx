// app.jsx - a LangGraph UI's page, as its authors write them: React and
// useStream of @langchain/langgraph-sdk 1.15 (its classic client underneath),
// bundled at test time by usestream.mjs with esbuild (ctest
// interop-usestream-*; docs/testing.md, "useStream in Chromium").
//
//   app.html?api=URL&assistant=ID[&resumable=1[&thread=ID]]
//
// A composer sends a user message (a new thread, then a run streamed from
// it); the thread's messages render as they stream: human and AI texts,
// and each AI tool call with its result. When the run is interrupted, the
// interrupt's question and a form show; its answer resumes the run
// (submit with command.resume), and the continued run renders below.
// With resumable=1 the page is as the UIs that survive a reload are
// (agent-chat-ui's options): the thread id is kept in the address
// (thread=ID), runs are resumable, and a page loaded while its thread's run
// goes on joins it (reconnectOnMount); the thread's history is read
// (fetchStateHistory).
//
// The page has no test logic: usestream.mjs's harness drives it through
// the DOM, as a person would. What it reads are the data-* attributes:
// #status's data-status (idle | running | interrupted | error), and each
// rendered item's data-kind (human | ai | tool-call | tool-result |
// question) with its text. Every string from the server is rendered as a
// React text child, never as markup.
import { useStream } from "@langchain/langgraph-sdk/react";
import { useState } from "react";
import { createRoot } from "react-dom/client";

const query = new URLSearchParams(window.location.search);

// The text of a message's content: a string, or its text blocks joined.
function textOf(content) {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.filter((b) => b != null && b.type === "text" && typeof b.text === "string").map((b) => b.text).join("");
}

// A value shown as text: strings as they are, the rest as JSON.
const shown = (v) => (typeof v === "string" ? v : JSON.stringify(v ?? null));

// One tool call of an AI message, with its result once the tool answered.
function ToolCall({ call }) {
  return (
    <li className="tool">
      <div data-kind="tool-call" data-name={call.call.name}>
        {call.call.name} {JSON.stringify(call.call.args ?? {})}
      </div>
      {call.result !== undefined && <div data-kind="tool-result">{textOf(call.result.content)}</div>}
    </li>
  );
}

function Message({ stream, message }) {
  const type = message.type ?? message.role;
  const text = textOf(message.content);
  const calls = type === "ai" ? stream.getToolCalls(message) : [];
  return (
    <li className={`message ${type}`}>
      {text !== "" && <p data-kind={type === "human" ? "human" : "ai"}>{text}</p>}
      {calls.length > 0 && <ul className="tools">{calls.map((c) => <ToolCall key={c.id ?? c.call.id} call={c} />)}</ul>}
    </li>
  );
}

// The interrupt: its question (the value's `question`, or the value as
// JSON) and a form whose answer resumes the run.
function Interrupt({ stream, interrupt }) {
  const value = interrupt.value;
  const question = value != null && typeof value === "object" && "question" in value ? value.question : value;
  const answer = (e) => {
    e.preventDefault();
    const text = new FormData(e.currentTarget).get("answer");
    stream.submit(null, { command: { resume: text } });
  };
  return (
    <form id="interrupt" onSubmit={answer}>
      <p data-kind="question">{shown(question)}</p>
      <input name="answer" autoComplete="off" />
      <button type="submit">Answer</button>
    </form>
  );
}

// useStream's options for resumable=1: the thread id in the address, and a
// run joined again when the page is loaded while it goes on.
function useResumable() {
  const [threadId, setThreadId] = useState(query.get("thread"));
  if (query.get("resumable") !== "1") return {};
  const onThreadId = (id) => {
    setThreadId(id);
    const q = new URLSearchParams(window.location.search);
    q.set("thread", id);
    window.history.replaceState(null, "", `?${q}`);
  };
  return { threadId, onThreadId, reconnectOnMount: true, fetchStateHistory: true };
}

function App() {
  const resumable = useResumable();
  const stream = useStream({ apiUrl: query.get("api"), assistantId: query.get("assistant"), messagesKey: "messages", ...resumable });
  const send = (e) => {
    e.preventDefault();
    const form = e.currentTarget;
    const text = new FormData(form).get("text");
    form.reset();
    stream.submit({ messages: [{ type: "human", content: text }] });
  };
  const interrupt = stream.interrupt;
  const status = stream.isLoading ? "running" : stream.error != null ? "error" : interrupt !== undefined ? "interrupted" : "idle";
  // Tool messages are shown with their calls, not on their own.
  const messages = stream.messages.filter((m) => (m.type ?? m.role) !== "tool");
  return (
    <main>
      <ol id="messages">
        {messages.map((m, i) => <Message key={m.id ?? i} stream={stream} message={m} />)}
      </ol>
      {status === "interrupted" && <Interrupt stream={stream} interrupt={interrupt} />}
      <p id="status" data-status={status}>{status}{stream.error != null ? `: ${shown(stream.error.message ?? stream.error)}` : ""}</p>
      <form id="composer" onSubmit={send}>
        <input name="text" autoComplete="off" />
        <button type="submit" disabled={stream.isLoading}>Send</button>
      </form>
    </main>
  );
}

createRoot(document.getElementById("root")).render(<App />);
