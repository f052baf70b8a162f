// One-line summaries of inspection events, in the words of `flowctl watch`, and small helpers to build the DOM from
// text only: every string from the feed comes from other processes, so it is set as text, never parsed as HTML.

/** An element with a class and text, children appended. */
export function element(tag, className, text, ...children) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  for (const child of children) if (child) node.append(child);
  return node;
}

/** A step as `name(key: value, …)`. flowctl watch prints the parameters as JSON (`name {"withId":8}`); the page
 * writes them as arguments, easier to read and to search for (`withId: 8`). */
export function stepText(step) {
  if (!step || typeof step !== "object") return "?";
  const parameters = Object.entries(step.parameters ?? {}).map(([key, value]) => `${key}: ${JSON.stringify(value)}`);
  return parameters.length ? `${step.name}(${parameters.join(", ")})` : String(step.name);
}

/** Where a step came from: a stepper by name, a screen by id (and name, when the tree knows it), or a flow. */
export function sourceText(source, names) {
  if (!source) return "?";
  if (source.stepper !== undefined) return `stepper ${source.stepper}`;
  if (source.presentable !== undefined) return `screen ${screenText(source.presentable, names)}`;
  if (source.coordinator) return "the coordinator";
  return JSON.stringify(source);
}

export function screenText(id, names) {
  const name = names?.screens?.get(id);
  return name ? `p${id} ${name}` : `p${id}`;
}

/** A flow as `f3 WishlistFlow`: its name from the session's tree, else from the event when it carries one (the flow
 * may have ended, or its session's tree not come yet). */
export function flowText(id, names, fallbackName) {
  const name = names?.flows?.get(id) ?? fallbackName;
  return name ? `f${id} ${name}` : `f${id}`;
}

function commandText(command, names) {
  const screen = (id) => (id === undefined ? "?" : screenText(id, names));
  const described = (p) => (p ? `p${p.id} ${p.name}` : "?");
  switch (command.op) {
    case "setWindowRoot": return `setWindowRoot ${described(command.presentable)}`;
    case "push": return `push ${described(command.presentable)} onto ${screen(command.container)}`;
    case "present": return `present ${described(command.presentable)} over ${screen(command.container)}`;
    case "pop": return `pop ${screen(command.container)} to ${screen(command.target)}`;
    case "dismiss": return `dismiss ${screen(command.target)}`;
    case "setTabs": return `setTabs ${screen(command.container)} [${(command.tabs ?? []).map(described).join(", ")}] selected ${command.selected ?? 0}`;
    case "selectTab": return `selectTab ${screen(command.container)} ${command.index ?? 0}`;
    case "setMaster": return `setMaster ${screen(command.container)} ${described(command.presentable)}`;
    case "setDetail": return `setDetail ${screen(command.container)} ${described(command.presentable)}`;
    default: return command.op ?? JSON.stringify(command);
  }
}

/** Whether a stepFate event is a drop. */
export function isDrop(event) {
  return event.kind === "stepFate" && event.fields?.accepted === false;
}

/** The stepper (or screen) an event's step came from, for the stepper filter. */
export function senderOf(event, names) {
  const source = event.fields?.source;
  if (source?.stepper !== undefined) return String(source.stepper);
  if (source?.presentable !== undefined) return screenText(source.presentable, names);
  if (event.kind === "commands" || event.kind === "visibilityReported") return String(event.fields?.presenter ?? "");
  if (event.kind === "registered" || event.kind === "unregistered") return String(event.fields?.name ?? "");
  return "";
}

/** `[label, summary]` of an event, as flowctl watch says it. */
export function summary(event, names) {
  const f = event.fields ?? {};
  const step = stepText(f.step);
  switch (event.kind) {
    case "stepFate":
      if (f.accepted) {
        return ["step", `${step} from ${sourceText(f.source, names)} → accepted by ${(f.flows ?? []).map((id) => flowText(id, names)).join(", ")}`];
      }
      return ["step", `${step} from ${sourceText(f.source, names)} → dropped (${f.reason ?? "?"})${f.explanation ? ": " + f.explanation : ""}`];
    case "stepReceived": return ["received", `${step} from ${sourceText(f.source, names)}`];
    case "deepLinkReceived": return ["deeplink", (f.path ?? []).map(stepText).join(" > ")];
    case "deepLinkWaiting": return ["deeplink", "waits until the session is ready"];
    case "willNavigate": return ["navigate", `${flowText(f.flow, names, f.name)} will navigate to ${step}`];
    case "didNavigate": return ["navigate", `${flowText(f.flow, names, f.name)} ▸ ${step} → ${f.contributors ?? ""}`];
    case "commands": return ["commands", `${f.presenter ?? "?"} #${f.sequence ?? 0}: ${(f.commands ?? []).map((c) => commandText(c, names)).join("; ")}`];
    case "adapted": return ["adapted", `${flowText(f.flow, names)} adapted ${stepText(f.from)} into ${stepText(f.to)}`];
    case "commandRejected": return ["rejected", `${flowText(f.flow, names)}: ${f.operation ?? "?"}: ${f.reason ?? ""}`];
    case "flowStarted": return ["flow", `started ${flowText(f.flow, names, f.name)}${f.parent !== null && f.parent !== undefined ? " in " + flowText(f.parent, names) : ""}`];
    case "flowReady": return ["flow", `${flowText(f.flow, names)} is ready`];
    case "flowEnded": return ["flow", `ended ${flowText(f.flow, names, f.name)} (${f.reason ?? ""})`];
    case "forwardDroppedAtRoot": return ["flow", `${flowText(f.flow, names)} ended with ${step} at the root: dropped, the root keeps running`];
    case "visibilityChanged": return ["visibility", `${screenText(f.presentable, names)} ${f.visibility ?? "?"}`];
    case "visibilityReported": return ["reported", `${f.presenter ?? "?"}: ${(f.presentables ?? []).map((id) => screenText(id, names)).join(", ")} ${f.visibility ?? "?"}${f.refused ? " — refused: " + f.refused : ""}`];
    case "sessionStarted": return ["session", `started (root flow ${f.name ?? "?"})`];
    case "sessionEnded": return ["session", "ended"];
    case "sessionData": return ["data", `${f.key ?? "?"} = ${JSON.stringify(f.value ?? null)}`];
    case "guardAsked": return ["guard", `asked ${f.guard ?? "?"} about ${f.subject ?? "?"} for ${step}`];
    case "guardAnswered": return ["guard", `question ${f.question ?? 0}: ${f.timedOut ? "no answer in time: refused" : f.allowed ? "allowed" : "refused"}`];
    case "guardMissing": return ["guard", `no guard named ${f.guard ?? "?"} is connected`];
    case "registered": return ["peer", `${f.role ?? "?"} ${f.name ?? "?"} registered (${f.peer ?? "?"})`];
    case "unregistered": return ["peer", `${f.role ?? "peer"} ${f.name ?? "?"} left: ${f.reason ?? ""}`];
    case "error": return ["error", `${f.peer ?? "?"}: ${f.code ?? "?"}: ${f.message ?? ""}`];
    default: return [event.kind, JSON.stringify(f)];
  }
}

/** A wall-clock time as `HH:MM:SS.mmm` (local). */
export function clock(at) {
  const date = new Date(at);
  const pad = (n, w = 2) => String(n).padStart(w, "0");
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`;
}

/** A duration in words: `300 ms`, `12 s`, `4 min`. */
export function duration(ms) {
  if (ms === null || ms === undefined) return "?";
  if (ms < 1000) return `${ms} ms`;
  if (ms < 120000) return `${Math.round(ms / 1000)} s`;
  if (ms < 7200000) return `${Math.round(ms / 60000)} min`;
  return `${Math.round(ms / 3600000)} h`;
}
