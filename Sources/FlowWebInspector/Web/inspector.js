// The FlowBus inspector page: it talks only to flowctl web (its feed at /feed), which watches flowd. It shows the
// sessions, the selected session's flow tree and screens, the timeline of events with filters and pause, an
// event's tree before and after, the flow file, and recordings scrubbed through in time.

import { DiagramView } from "./modules/diagram-view.js";
import { Feed } from "./modules/feed.js";
import { History } from "./modules/history.js";
import { RecordingView } from "./modules/recording-view.js";
import { SessionsView } from "./modules/sessions-view.js";
import { clock, element, isDrop, summary } from "./modules/text.js";
import { TimelineView } from "./modules/timeline-view.js";
import { drawFlows, drawScreens, drawTree, namesOf } from "./modules/tree-view.js";

const $ = (id) => document.getElementById(id);
const wanted = new URLSearchParams(location.search).get("session") ?? undefined;
const state = {
  history: new History(5000),
  selected: undefined,
  names: new Map(),
  lastNavigation: new Map(),
  ended: new Set(),
  sessionsSeen: false,
  flows: undefined,
  feedOpen: false,
  flowdStatus: undefined,
};

const feed = new Feed({ onMessage: received, onState: feedState });
const sessions = new SessionsView({ list: $("sessions"), filter: $("session-filter"), note: $("session-note"), onSelect: select });
const diagram = new DiagramView($("diagram"));
const timeline = new TimelineView({
  list: $("timeline"),
  filters: () => ({
    session: $("filter-session").value,
    stepper: $("filter-stepper").value.trim(),
    fate: $("filter-fate").value,
    text: $("filter-text").value.trim(),
  }),
  names: (session) => state.names.get(session),
  onSelect: showEvent,
});
const recording = new RecordingView({
  input: $("recording-file"),
  controls: $("recording-controls"),
  scrubber: $("scrubber"),
  position: $("recording-position"),
  name: $("recording-name"),
  previous: $("recording-prev"),
  next: $("recording-next"),
  live: $("live"),
  send: (message) => feed.send(message),
  onPosition: showFrame,
  onLeave: leaveRecording,
});

for (const id of ["filter-session", "filter-fate"]) $(id).addEventListener("change", redrawTimeline);
for (const id of ["filter-stepper", "filter-text"]) $(id).addEventListener("input", redrawTimeline);
$("pause").addEventListener("click", togglePause);

function received(message) {
  switch (message.type) {
    case "hello": return hello(message);
    case "status": return status(message);
    case "sessions": return sessionsListed(message);
    case "events": return events(message.events ?? []);
    case "skipped": return note(`flowctl left out ${message.count} events this page did not read in time`);
    case "tree": return tree(message);
    case "flows": return flowsReport(message.flows);
    case "recording": return recording.open(message);
    case "error": return showError(message.message);
    default: return undefined;
  }
}

function hello(message) {
  state.history = new History(message.history ?? 5000);
  state.mode = message.mode;
  updateHistoryNote();
  const first = wanted ?? message.session ?? undefined;
  if (first && !state.selected) select(first);
  timeline.redraw([]);
}

function feedState({ open, retryIn }) {
  state.feedOpen = open;
  if (!open) {
    setStatus(false, `flowctl web stopped or cannot be reached: reconnecting in ${Math.round(retryIn / 100) / 10} s…`);
  }
}

function status(message) {
  state.flowdStatus = message;
  setStatus(message.connected, message.message);
}

function setStatus(connected, text) {
  $("status").textContent = text;
  $("status").className = `status ${connected ? "connected" : "disconnected"}`;
}

function showError(text) {
  const line = element("div", "error", `${clock(Date.now())} ${text}`);
  $("errors").append(line);
  while ($("errors").childElementCount > 5) $("errors").firstElementChild.remove();
}

function note(text) {
  $("session-state").textContent = text;
}

function sessionsListed(message) {
  const list = message.sessions ?? [];
  sessions.update(list);
  const filter = $("filter-session");
  const chosen = filter.value;
  const names = list.map((s) => s.session).sort();
  filter.replaceChildren(element("option", null, "every session"), ...names.map((name) => element("option", null, name)));
  filter.options[0].value = "";
  for (const option of [...filter.options].slice(1)) option.value = option.textContent;
  if (chosen && !names.includes(chosen)) filter.append(Object.assign(element("option", null, chosen), { value: chosen }));
  filter.value = chosen;
  const first = !state.sessionsSeen;
  state.sessionsSeen = true;
  if (state.selected && !recording.active) {
    if (sessions.has(state.selected)) {
      state.ended.delete(state.selected);
      if ($("session-state").dataset.kind !== "live") sessionState("live", "");
    } else if (first || state.known?.has(state.selected)) {
      const text = state.known?.has(state.selected) || state.ended.has(state.selected)
        ? `session ${state.selected} ended: its last tree is kept below`
        : `no session "${state.selected}" on flowd`;
      sessionState("missing", text);
    }
  }
  state.known = new Set([...(state.known ?? []), ...names]);
}

function sessionState(kind, text) {
  $("session-state").dataset.kind = kind;
  $("session-state").textContent = text;
}

function select(session) {
  state.selected = session;
  sessions.select(session);
  feed.send({ type: "select", session });
  $("session-title").textContent = `Session ${session}`;
  if (!recording.active) {
    drawSelectedTree();
    if (state.sessionsSeen && !sessions.has(session)) {
      sessionState("missing", state.known?.has(session) ? `session ${session} ended: its last tree is kept below` : `no session "${session}" on flowd`);
    } else {
      sessionState("live", "");
    }
  }
}

function events(list) {
  for (const event of list) {
    if (event.kind === "didNavigate") {
      state.lastNavigation.set(event.session, { flow: event.fields?.name, step: event.fields?.step?.name });
    } else if (event.kind === "sessionEnded") {
      state.ended.add(event.session);
      if (event.session === state.selected && !recording.active) {
        sessionState("ended", `session ${event.session} ended: its last tree is kept below`);
      }
    }
  }
  const shown = state.history.add(list);
  if (!recording.active) timeline.append(shown);
  updateWaiting();
  updateHistoryNote();
}

function tree(message) {
  state.history.addTree(message.session, message.seq, message.tree);
  state.names.set(message.session, namesOf(message.tree));
  if (message.session === state.selected && !recording.active) drawSelectedTree();
}

function drawSelectedTree() {
  const latest = state.history.latestTree(state.selected);
  drawFlows($("tree"), latest);
  drawScreens($("screens"), latest);
  diagram.mark(latest, state.lastNavigation.get(state.selected));
}

function flowsReport(report) {
  state.flows = report;
  if (!recording.active) {
    diagram.show(report);
    diagram.mark(state.history.latestTree(state.selected), state.lastNavigation.get(state.selected));
  }
}

function redrawTimeline() {
  if (recording.active) return showFrame(Number($("scrubber").value), recording.recording.frames);
  timeline.redraw(state.history.events);
}

function togglePause() {
  if (state.history.paused) {
    timeline.append(state.history.resume());
    $("pause").textContent = "pause";
  } else {
    state.history.paused = true;
    $("pause").textContent = "resume";
  }
  updateWaiting();
}

function updateHistoryNote() {
  $("history-note").textContent =
    `The page keeps the last ${state.history.limit} events (it holds ${state.history.events.length}); ` +
    `the timeline draws at most the last ${timeline.rows} that match its filters.`;
}

function updateWaiting() {
  const waiting = state.history.waiting.length;
  $("waiting").textContent = state.history.paused ? `paused: ${waiting} new event${waiting === 1 ? "" : "s"} waiting` : "";
}

function showEvent(event) {
  $("event-panel").hidden = false;
  const detail = $("event-detail");
  const [label, line] = summary(event, state.names.get(event.session));
  const lines = [
    element("div", "detail-head", `#${event.seq} ${clock(event.at)} · session ${event.session} · ${event.kind}`),
    element("div", "detail-summary", `${label}: ${line}`),
  ];
  if (event.kind === "stepFate") {
    const f = event.fields ?? {};
    lines.push(element("div", isDrop(event) ? "fate dropped" : "fate accepted", isDrop(event) ? `fate: dropped (${f.reason ?? "?"})` : "fate: accepted"));
    if (f.explanation) lines.push(element("div", "explanation", `why: ${f.explanation}`));
    if (f.remedy) lines.push(element("div", "remedy", `remedy: ${f.remedy}`));
    if (f.sender) lines.push(element("div", "sender", `sent by ${f.sender}`));
  }
  lines.push(element("pre", "fields", JSON.stringify(event.fields ?? {}, null, 2)));
  detail.replaceChildren(...lines);
  const { before, after } = recording.active ? framesAround(event) : state.history.around(event.session, event.seq);
  drawTree($("tree-before"), before?.tree);
  drawTree($("tree-after"), after?.tree, before?.tree ?? { flows: [], screens: [], contributions: [] });
  if (!before) $("tree-before").prepend(element("p", "note", "no tree of the session before this event was seen"));
  if (!after) $("tree-after").prepend(element("p", "note", "the tree after this event has not come yet"));
}

/** In a recording: the session's tree after the frame before the event's, and after the event's frame. */
function framesAround(event) {
  const frames = recording.recording.frames;
  const index = frames.findIndex((frame) => frame.events.some((e) => e.seq === event.seq));
  let before;
  for (let i = index - 1; i >= 0; i--) {
    if (frames[i].session === event.session) {
      before = { tree: frames[i].tree };
      break;
    }
  }
  return { before, after: index >= 0 ? { tree: frames[index].tree } : undefined };
}

function showFrame(index, frames) {
  const shown = frames.slice(0, index + 1);
  const frame = frames[index];
  const session = frame?.session ?? recording.recording.sessions[0];
  $("session-title").textContent = `Recording ${recording.recording.name}: session ${session}`;
  sessionState("recording", index < 0 ? "before the first input: no session yet" : "");
  const tree = frame?.tree;
  if (tree) state.names.set(session, namesOf(tree));
  drawFlows($("tree"), tree);
  drawScreens($("screens"), tree);
  diagram.show(recording.recording.flows);
  let last;
  for (const f of shown) for (const e of f.events) if (e.kind === "didNavigate") last = { flow: e.fields?.name, step: e.fields?.step?.name };
  diagram.mark(tree, last);
  timeline.redraw(shown.flatMap((f) => f.events));
}

function leaveRecording() {
  $("session-title").textContent = state.selected ? `Session ${state.selected}` : "No session selected";
  sessionState("live", "");
  diagram.show(state.flows);
  drawSelectedTree();
  timeline.redraw(state.history.events);
}
