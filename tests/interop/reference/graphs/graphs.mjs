// graphs.mjs - the reference server's graphs (server.mjs loads them as
// graphs.mjs:agent, :subgraph_interrupt and :silent). Offline and
// deterministic: the chat model is scripted, nothing reaches a network.
//
//   agent               a ReAct loop: the model streams a get_weather tool
//                       call token by token, the tool node answers, the model
//                       streams a final text answer
//   subgraph_interrupt  a parent graph whose subgraph node asks a question
//                       with interrupt() and, once resumed (input.respond),
//                       writes the answer into the messages
//   silent              one node silent for APSTREAM_REF_SILENT_MS (25000 by
//                       default), then a scripted answer
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, AIMessageChunk } from "@langchain/core/messages";
import { ChatGenerationChunk } from "@langchain/core/outputs";
import { tool } from "@langchain/core/tools";
import { END, MessagesAnnotation, START, StateGraph, interrupt } from "@langchain/langgraph";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import { z } from "zod";

// Splits text into the tokens the model streams: words with their spaces.
const tokens = (text) => text.match(/\s*\S+/g) ?? [];

// A chat model that plays a script instead of calling a provider. reply(messages)
// says what it answers: { text } or { toolCall: { id, name, args } }. Each
// answer is streamed as chunks (text by word, tool arguments by JSON piece),
// each also reported through handleLLMNewToken, as the providers do.
class ScriptedChatModel extends BaseChatModel {
  constructor(reply) {
    super({});
    this.reply = reply;
  }

  _llmType() { return "scripted"; }

  bindTools() { return this; }

  *chunks(messages) {
    const answer = this.reply(messages);
    if (answer.toolCall) {
      const { id, name, args } = answer.toolCall;
      const json = JSON.stringify(args);
      // The first chunk names the call; the arguments follow in pieces.
      const pieces = ["", ...json.match(/.{1,8}/g)];
      for (const [i, piece] of pieces.entries()) {
        yield new AIMessageChunk({
          content: "",
          tool_call_chunks: [{ index: 0, type: "tool_call_chunk", id: i === 0 ? id : undefined,
                               name: i === 0 ? name : undefined, args: piece }],
        });
      }
      return;
    }
    for (const token of tokens(answer.text)) yield new AIMessageChunk({ content: token });
  }

  async *_streamResponseChunks(messages, _options, runManager) {
    for (const message of this.chunks(messages)) {
      const text = typeof message.content === "string" ? message.content : "";
      const chunk = new ChatGenerationChunk({ message, text });
      yield chunk;
      await runManager?.handleLLMNewToken(text, undefined, undefined, undefined, undefined, { chunk });
    }
  }

  async _generate(messages, options, runManager) {
    let whole;
    for await (const chunk of this._streamResponseChunks(messages, options, runManager)) {
      whole = whole ? whole.concat(chunk) : chunk;
    }
    return { generations: [{ text: whole.text, message: whole.message }] };
  }
}

const getWeather = tool(async ({ city }) => `It is 18 degrees and sunny in ${city}.`, {
  name: "get_weather",
  description: "The current weather of a city.",
  schema: z.object({ city: z.string() }),
});

// agent: a tool call on the first turn, a text answer after the tool's result.
// The call's id counts the user's turns (call_weather_1 on a thread's first
// run): the tool node skips a call whose id already has a result.
const agentModel = new ScriptedChatModel((messages) => {
  const last = messages[messages.length - 1];
  if (last?._getType?.() === "tool") {
    return { text: `The weather in Paris: ${last.content} Enjoy your day!` };
  }
  const turn = messages.filter((m) => m._getType?.() === "human").length;
  return { toolCall: { id: `call_weather_${turn}`, name: "get_weather", args: { city: "Paris" } } };
});

const callModel = async (state) => ({ messages: [await agentModel.invoke(state.messages)] });
const toolsOrEnd = (state) => {
  const last = state.messages[state.messages.length - 1];
  return last?.tool_calls?.length ? "tools" : END;
};
export const agent = new StateGraph(MessagesAnnotation)
  .addNode("model", callModel)
  .addNode("tools", new ToolNode([getWeather]))
  .addEdge(START, "model")
  .addConditionalEdges("model", toolsOrEnd, ["tools", END])
  .addEdge("tools", "model")
  .compile();

// subgraph_interrupt: parent "plan" -> subgraph "approval" (ask, interrupt,
// continue with the answer) -> parent "finish".
const askModel = new ScriptedChatModel(() => ({ text: "I will book the flight once you approve." }));
const approval = new StateGraph(MessagesAnnotation)
  .addNode("ask", async (state) => ({ messages: [await askModel.invoke(state.messages)] }))
  .addNode("wait_for_answer", () => {
    const answer = interrupt({ question: "Book the flight to Paris?", options: ["yes", "no"] });
    return { messages: [new AIMessage(`You answered: ${typeof answer === "string" ? answer : JSON.stringify(answer)}.`)] };
  })
  .addEdge(START, "ask")
  .addEdge("ask", "wait_for_answer")
  .addEdge("wait_for_answer", END)
  .compile();
const finishModel = new ScriptedChatModel(() => ({ text: "Done: the flight is booked." }));
export const subgraph_interrupt = new StateGraph(MessagesAnnotation)
  .addNode("plan", () => ({ messages: [new AIMessage("Planning the trip.")] }))
  .addNode("approval", approval)
  .addNode("finish", async (state) => ({ messages: [await finishModel.invoke(state.messages)] }))
  .addEdge(START, "plan")
  .addEdge("plan", "approval")
  .addEdge("approval", "finish")
  .addEdge("finish", END)
  .compile();

// silent: nothing on the wire for APSTREAM_REF_SILENT_MS, then an answer.
const silentModel = new ScriptedChatModel(() => ({ text: "Sorry for the wait: here is the answer." }));
export const silent = new StateGraph(MessagesAnnotation)
  .addNode("think", async (state) => {
    const ms = Number(process.env.APSTREAM_REF_SILENT_MS ?? 25000);
    await new Promise((resolve) => setTimeout(resolve, ms));
    return { messages: [await silentModel.invoke(state.messages)] };
  })
  .addEdge(START, "think")
  .addEdge("think", END)
  .compile();
