// classic_values.mjs - a state's values as the classic REST API shows them
// (docs/rest.md, "Messages"), written here independently of serve's C: text
// content blocks as one string (tool-call blocks dropped, and
// output_version with them), and the members LangChain always serializes
// added. What a test expects of GET /threads/{id}/state, runs.wait and the
// classic stream's values, given a capture's protocol values.
export function classic(values) {
  if (values === null || typeof values !== "object" || !Array.isArray(values.messages)) return values;
  const message = (m) => {
    if (m === null || typeof m !== "object" || Array.isArray(m)) return m;
    const out = { ...m };
    const blocks = Array.isArray(m.content) ? m.content : null;
    if (blocks && blocks.every((b) => ["text", "tool_call", "tool_call_chunk"].includes(b?.type))) {
      out.content = blocks.filter((b) => b.type === "text").map((b) => b.text).join("");
      if (out.response_metadata && typeof out.response_metadata === "object") {
        const { output_version: _, ...rest } = out.response_metadata;
        out.response_metadata = rest;
      }
    }
    out.additional_kwargs ??= {};
    out.response_metadata ??= {};
    if (m.type === "ai") { out.tool_calls ??= []; out.invalid_tool_calls ??= []; }
    return out;
  };
  return { ...values, messages: values.messages.map(message) };
}
