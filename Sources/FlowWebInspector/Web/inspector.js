// The FlowBus inspector page: it talks only to flowctl web (its feed at /feed), which watches flowd. It shows the
// sessions, the selected session's flow tree and screens, the timeline of events with filters and pause, an
// event's tree before and after, the flow file, and recordings scrubbed through in time. This file wires the feed's
// messages to the views; what each view draws is in its module.

import { DiagramView } from "./modules/diagram-view.js";
import { Feed } from "./modules/feed.js";
import { History } from "./modules/history.js";
import { RecordingView } from "./modules/recording-view.js";
import { SessionsView } from "./modules/sessions-view.js";
import { clock, element } from "./modules/text.js";
import { drawEventDetail, TimelineView } from "./modules/timeline-view.js";
import { drawFlows, drawScreens, drawTree, namesOf } from "./modules/tree-view.js";

const protocolVersion = 1;
const timelineRows = 500;
const $ = (id) => document.getElementById(id);
const wanted = new URLSearchParams(location.search).get("session") || undefined;
const state = {
  history: new History(5000),
  selected: undefined,
  names: new Map(), // session → flow and screen names, from its latest tree
  lastNavigation: new Map(), // session → { flow, step } of its last didNavigate
  endedAt: new Map(), // session → when its sessionEnded came (a session of the same id started later is another)
  known: new Set(), // every session a `sessions` message listed
  listedAt: 0, // when the last `sessions` message came
  startedAt: new Map(), // session → when its sessionStarted came (it exists, though not listed until the next list)
  sessionsSeen: false,
  sessionNames: "",
  flows: undefined,
  mode: undefined, // "live" or "offline", from hello
  skipped: 0,
  detail: undefined, // the event shown in #event-detail
  detailExact: false, // whether its trees are flowctl's mirror's, exact (not the trees read after batches)
  detailGap: undefined, // why flowctl has no exact trees for it
  unknownTypes: new Set(),
};

const feed = new Feed({
  onMessage: received,
  onState: feedState,
  onUnreadable: (text) => showError(`flowctl web sent a message that is not JSON: ${text}`),
});
const sessions = new SessionsView({ list: $("sessions"), filter: $("session-filter"), note: $("session-note"), onSelect: select });
const diagram = new DiagramView($("diagram"));
const timeline = new TimelineView({
  list: $("timeline"),
  rows: timelineRows,
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
  play: $("recording-play"),
  live: $("live"),
  send: (message) => {
    $("recording-note").textContent = `asked flowctl to replay ${message.name}…`;
    feed.send(message);
  },
  onPosition: showFrame,
  onLeave: leaveRecording,
});

for (const id of ["filter-session", "filter-fate"]) $(id).addEventListener("change", redrawTimeline);
for (const id of ["filter-stepper", "filter-text"]) $(id).addEventListener("input", redrawTimeline);
$("pause").addEventListener("click", togglePause);
updateHistoryNote();

function received(message) {
  switch (message.type) {
    case "hello": return hello(message);
    case "status": return status(message);
    case "sessions": return sessionsListed(message);
    case "events": return events(message.events ?? []);
    case "skipped": return skipped(message.count ?? 0);
    case "tree": return tree(message);
    case "treesAround": return treesAround(message);
    case "flows": return flowsReport(message.flows);
    case "recording": return recordingOpened(message);
    case "error": return showError(message.message ?? JSON.stringify(message));
    default: return unknownType(message.type);
  }
}

/** A message of a type this page does not know (a newer flowctl?): said once per type, then ignored. */
function unknownType(type) {
  if (state.unknownTypes.has(type)) return;
  state.unknownTypes.add(type);
  showError(`flowctl web sent a message of type "${type}", which this page does not know: it ignores such messages`);
}

// MARK: flowctl and flowd

/** A new connection (the first, or after flowctl came back): what the feed is, then the page asks again for what
 * it was looking at. Events are numbered afresh on a new connection, so the history starts again. */
function hello(message) {
  if (message.version !== protocolVersion) {
    showError(`flowctl web speaks version ${message.version} of the feed, this page version ${protocolVersion}: reload the page`);
  }
  state.history = state.history.restarted(message.history ?? 5000);
  state.skipped = 0;
  // Events are numbered afresh: the event shown (and any answer about it still to come) is of the last connection.
  hideEvent();
  state.mode = message.mode;
  timeline.rows = Math.min(timelineRows, state.history.limit);
  $("pause").textContent = "pause";
  $("pause").setAttribute("aria-pressed", "false");
  $("target").textContent = message.mode === "offline"
    ? "offline: no flowd, recordings only"
    : `live: flowd at ${message.target ?? "?"}${message.fleet ? " (a fleet)" : ""}`;
  const session = state.selected ?? wanted;
  if (session) select(session);
  if (!recording.active) timeline.redraw([]);
  updateWaiting();
  updateHistoryNote();
}

function feedState({ open, retryIn, wasOpen }) {
  document.body.dataset.feed = open ? "open" : "closed";
  if (open) {
    setStatus("connecting", "connected to flowctl web: waiting for its word on flowd…");
    return;
  }
  const retry = `reconnecting in ${Math.round(retryIn / 100) / 10} s…`;
  setStatus(
    "flowctl-gone",
    wasOpen ? `flowctl web stopped (the page's feed closed): ${retry}` : `cannot reach flowctl web at ${location.host}: ${retry}`,
  );
}

/** flowctl's word on flowd: watching it, or waiting for it to come back (or, offline, that there is none). */
function status(message) {
  const kind = message.connected ? "flowd-connected" : state.mode === "offline" ? "offline" : "flowd-gone";
  setStatus(kind, message.message ?? "");
}

const stale = " — as flowd last said it";

/** The banner: `state` says whose trouble it is (flowctl's feed, or flowd) for the look; the text says it all. */
function setStatus(kind, text) {
  const banner = $("status");
  banner.textContent = text;
  banner.dataset.state = kind;
  // While flowd is away, what the page shows is what flowd last said: dimmed, and said so.
  document.body.dataset.flowd = kind === "flowd-gone" ? "gone" : "there";
  const note = $("session-note");
  if (kind === "flowd-gone" && !note.textContent.endsWith(stale)) note.textContent += stale;
  const look = { "flowd-connected": "connected", connecting: "unknown", offline: "unknown" }[kind] ?? "disconnected";
  banner.className = `status ${look}`;
}

function showError(text) {
  $("recording-note").textContent = "";
  const line = element("div", "error", `${clock(Date.now())} ${text}`);
  const dismiss = element("button", "dismiss", "×");
  dismiss.type = "button";
  dismiss.title = "dismiss";
  dismiss.addEventListener("click", () => line.remove());
  line.append(" ", dismiss);
  $("errors").append(line);
  while ($("errors").childElementCount > 3) $("errors").firstElementChild.remove();
}

// MARK: Sessions

function sessionsListed(message) {
  const list = message.sessions ?? [];
  state.listedAt = Date.now();
  sessions.update(list);
  for (const session of list) {
    state.known.add(session.session);
    // Listed again, younger than the time since it ended: a new session of the same id.
    const ended = state.endedAt.get(session.session);
    if (ended !== undefined && session.ageMs < Date.now() - ended) state.endedAt.delete(session.session);
  }
  updateSessionFilter(list.map((s) => s.session).sort());
  state.sessionsSeen = true;
  updateSessionState();
}

/** The timeline's session choice, rebuilt only when the sessions change (rebuilt every second, it would close under
 * the reader's pointer). */
function updateSessionFilter(names) {
  const key = names.join("\n");
  if (key === state.sessionNames) return;
  state.sessionNames = key;
  const filter = $("filter-session");
  const chosen = filter.value;
  const options = [element("option", null, "every session"), ...names.map((name) => element("option", null, name))];
  options[0].value = "";
  if (chosen && !names.includes(chosen)) options.push(element("option", null, chosen));
  filter.replaceChildren(...options);
  filter.value = chosen;
}

function select(session) {
  state.selected = session;
  sessions.select(session);
  // The address names the session: a reload, or the address sent to someone, opens it again.
  const address = new URL(location.href);
  if (address.searchParams.get("session") !== session) {
    address.searchParams.set("session", session);
    history.replaceState(null, "", address);
  }
  feed.send({ type: "select", session });
  if (recording.active) return;
  $("session-title").textContent = `Session ${session}`;
  drawSelectedTree();
  updateSessionState();
}

/** What the page says of the selected session: nothing while it runs; that it ended (its last tree stays drawn); or
 * that flowd has no such session (named in the URL, once the first list came without it). */
function updateSessionState() {
  if (recording.active) return;
  const session = state.selected;
  // Started since the last list (flowctl lists every second): it exists.
  const listed = session !== undefined && (sessions.has(session) || (state.startedAt.get(session) ?? 0) >= state.listedAt);
  let kind = "live";
  let text = "";
  if (session === undefined) {
    kind = "none";
  } else if (state.endedAt.has(session) || (state.known.has(session) && !listed && state.sessionsSeen)) {
    kind = "ended";
    text = `session ${session} ended: its last tree is kept below`;
  } else if (state.sessionsSeen && !listed) {
    kind = "missing";
    text = `no session "${session}" on flowd`;
  }
  sessionState(kind, text);
}

function sessionState(kind, text) {
  $("session-state").dataset.kind = kind;
  $("session-state").textContent = text;
}

// MARK: Events and trees

function events(list) {
  let sessionsChanged = false;
  for (const event of list) {
    if (event.kind === "didNavigate") {
      state.lastNavigation.set(event.session, { flow: event.fields?.name, step: event.fields?.step?.name });
    } else if (event.kind === "sessionEnded") {
      state.endedAt.set(event.session, Date.now());
      sessionsChanged = true;
    } else if (event.kind === "sessionStarted") {
      state.names.delete(event.session); // a session of the same id started anew: its ids start again
      state.startedAt.set(event.session, Date.now());
      state.endedAt.delete(event.session);
      sessionsChanged = true;
    }
  }
  const shown = state.history.add(list);
  if (!recording.active) timeline.append(shown);
  if (sessionsChanged) updateSessionState();
  updateWaiting();
  updateHistoryNote();
}

function skipped(count) {
  state.skipped += count;
  updateHistoryNote();
}

/** Keeps the flow and screen names of `tree` with those seen before (an id names one flow or screen for the whole
 * session: a screen dismissed since is still named in the events that speak of it). */
function learnNames(session, tree) {
  const names = namesOf(tree);
  const known = state.names.get(session);
  if (known) {
    for (const [id, name] of known.flows) if (!names.flows.has(id)) names.flows.set(id, name);
    for (const [id, name] of known.screens) if (!names.screens.has(id)) names.screens.set(id, name);
  }
  state.names.set(session, names);
}

function tree(message) {
  state.history.addTree(message.session, message.seq, message.tree);
  learnNames(message.session, message.tree);
  if (recording.active) return;
  if (message.session === state.selected) drawSelectedTree();
  // The event shown may have been waiting for its tree after.
  if (!state.detailExact && state.detail?.session === message.session && message.seq >= state.detail.seq) {
    drawBatchTrees(state.detail, state.detailGap);
  }
}

function drawSelectedTree() {
  const latest = state.history.latestTree(state.selected);
  drawFlows($("tree"), latest);
  drawScreens($("screens"), latest);
  diagram.mark(latest, state.lastNavigation.get(state.selected));
}

function flowsReport(report) {
  state.flows = report;
  if (recording.active) return;
  diagram.show(report);
  diagram.mark(state.history.latestTree(state.selected), state.lastNavigation.get(state.selected));
}

// MARK: Timeline

function redrawTimeline() {
  if (recording.active) return showFrame(Number($("scrubber").value), recording.recording.frames);
  timeline.redraw(state.history.events);
}

function togglePause() {
  if (state.history.paused) {
    timeline.append(state.history.resume());
    $("pause").textContent = "pause";
  } else {
    state.history.pause();
    $("pause").textContent = "resume";
  }
  $("pause").setAttribute("aria-pressed", String(state.history.paused));
  updateWaiting();
  updateHistoryNote();
}

function updateHistoryNote() {
  const history = state.history;
  const left = state.skipped ? ` flowctl left out ${state.skipped} events the page could not take in time.` : "";
  $("history-note").textContent =
    `The page keeps the last ${history.limit} events (it holds ${history.events.length}); ` +
    `the timeline draws at most the last ${timeline.rows} that match its filters.${left}`;
}

function updateWaiting() {
  const history = state.history;
  const waiting = history.waiting.length;
  const letGo = history.letGoWhilePaused
    ? `; the oldest ${history.letGoWhilePaused} let go (the page keeps ${history.limit})`
    : "";
  $("waiting").textContent = history.paused ? `paused: ${waiting} new event${waiting === 1 ? "" : "s"} waiting${letGo}` : "";
}

function showEvent(event) {
  state.detail = event;
  state.detailExact = false;
  state.detailGap = undefined;
  $("event-panel").hidden = false;
  drawEventDetail($("event-detail"), event, state.names.get(event.session));
  if (recording.active) return drawRecordedTrees(event);
  // flowctl mirrors the sessions it saw start: it has the trees around every event, exactly. Until it answers, the
  // trees read from flowd after batches are shown.
  drawBatchTrees(event);
  if (event.session !== "-") feed.send({ type: "treesAround", session: event.session, seq: event.seq }, { now: true });
}

/** flowctl's answer: the exact trees around the event shown, or why it has none (then the batches' trees stay). */
function treesAround(message) {
  const event = state.detail;
  if (recording.active || !event || event.session !== message.session || event.seq !== message.seq) return;
  if (!message.exact) {
    state.detailGap = message.why;
    return drawBatchTrees(event, message.why);
  }
  state.detailExact = true;
  learnNames(message.session, message.after);
  const empty = { flows: [], screens: [], contributions: [] };
  drawTree($("tree-before"), message.before ?? undefined, { later: message.after });
  drawTree($("tree-after"), message.after, { earlier: message.before ?? empty });
  const input = message.input === event.seq ? "this input" : `input #${message.input}, the one this event belongs to`;
  if (!message.before) $("tree-before").prepend(element("p", "note", "the session did not exist before its start"));
  $("tree-after").prepend(
    element("p", "note exact", `exact (flowctl's mirror of the session): the tree just after ${input}`),
  );
}

/** A recorded event's trees: after the frame before its own, and after its own (a frame is one input). */
function drawRecordedTrees(event) {
  const { before, after } = recording.treesAround(event);
  drawTree($("tree-before"), before?.tree, { later: after?.tree });
  drawTree($("tree-after"), after?.tree, { earlier: before?.tree ?? { flows: [], screens: [], contributions: [] } });
  if (!before) $("tree-before").prepend(element("p", "note", "no tree of the session before this event's input"));
}

/** The trees flowctl read from flowd after the batches of events around this one (a batch gathers up to 100 ms of
 * events: its events share them), when flowctl has no mirrored trees for it (`why`). */
function drawBatchTrees(event, why) {
  if (event.session === "-") {
    const text = "This event belongs to no session: it has no tree.";
    $("tree-before").replaceChildren(element("p", "note", text));
    $("tree-after").replaceChildren(element("p", "note", text));
    return;
  }
  const { before, after, unfollowed } = state.history.around(event.session, event.seq);
  const gap = why ? `Not exact: ${why}. ` : "";
  if (unfollowed) {
    const text = `${gap}And the page was not following this session's tree then (select a session before its events to see their trees).`;
    $("tree-before").replaceChildren(element("p", "note", text));
    $("tree-after").replaceChildren(element("p", "note", text));
    return;
  }
  drawTree($("tree-before"), before?.tree, { later: after?.tree });
  drawTree($("tree-after"), after?.tree, { earlier: before?.tree ?? { flows: [], screens: [], contributions: [] } });
  const shared = "events that came in one batch share these trees: what they mark as changed may be another event's";
  $("tree-before").prepend(
    element("p", "note inexact", before
      ? `${gap}As flowd answered before the batch of this event (after event #${before.seq}); ${shared}.`
      : `${gap}No tree of the session before this event was seen.`),
  );
  $("tree-after").prepend(
    element("p", "note inexact", after
      ? `${gap}As flowd answered after the batch of this event (after event #${after.seq}); ${shared}.`
      : `${gap}The tree after this event has not come yet.`),
  );
}

function hideEvent() {
  state.detail = undefined;
  $("event-panel").hidden = true;
  timeline.clearSelection();
}

// MARK: Recording

function recordingOpened(message) {
  $("recording-note").textContent = "";
  hideEvent();
  recording.open(message);
}

function showFrame(index, frames) {
  const shown = frames.slice(0, index + 1);
  const frame = frames[index];
  const session = frame?.session ?? recording.recording.sessions[0] ?? "?";
  $("session-title").textContent = `Recording ${recording.recording.name}: session ${session}`;
  sessionState("recording", index < 0 ? "before the first input: no session yet" : "");
  const tree = frame?.tree;
  if (tree) learnNames(session, tree);
  drawFlows($("tree"), tree);
  drawScreens($("screens"), tree);
  if (diagram.report !== recording.recording.flows) diagram.show(recording.recording.flows);
  let last;
  for (const f of shown) {
    for (const e of f.events ?? []) if (e.kind === "didNavigate") last = { flow: e.fields?.name, step: e.fields?.step?.name };
  }
  diagram.mark(tree, last);
  timeline.redraw(shown.flatMap((f) => f.events ?? []));
}

function leaveRecording() {
  hideEvent();
  $("session-title").textContent = state.selected ? `Session ${state.selected}` : "No session selected";
  diagram.show(state.flows);
  drawSelectedTree();
  updateSessionState();
  timeline.redraw(state.history.events);
}
