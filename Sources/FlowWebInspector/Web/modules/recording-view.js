// A recording opened in the page: the file's text goes to flowctl, which replays it with the flow file and sends
// back one frame per input (the input, the events it caused, its session's tree after it). The scrubber moves
// through the frames, and play moves through them at the pace they were recorded (a pause longer than two seconds
// is cut to two); the page's views follow it (the inspector wires that through `onPosition`).

import { stepText } from "./text.js";
import { namesOf } from "./tree-view.js";

export class RecordingView {
  constructor({ input, controls, scrubber, position, name, previous, next, play, live, send, onPosition, onLeave }) {
    Object.assign(this, { input, controls, scrubber, position, name, play, send, onPosition, onLeave });
    this.recording = undefined;
    this.timer = undefined;
    input.addEventListener("change", async () => {
      const file = input.files?.[0];
      if (!file) return;
      const text = await file.text();
      this.send({ type: "openRecording", name: file.name, text });
      input.value = "";
    });
    scrubber.addEventListener("input", () => this.#moveByHand(Number(scrubber.value)));
    previous.addEventListener("click", () => this.#moveByHand(Number(scrubber.value) - 1));
    next.addEventListener("click", () => this.#moveByHand(Number(scrubber.value) + 1));
    play.addEventListener("click", () => (this.playing ? this.stop() : this.start()));
    live.addEventListener("click", () => this.leave());
  }

  get playing() {
    return this.timer !== undefined;
  }

  /** Plays from the position (from the start when at the end). */
  start() {
    if (!this.recording) return;
    const frames = this.recording.frames;
    if (Number(this.scrubber.value) >= frames.length - 1) this.move(-1);
    this.play.textContent = "❚❚ pause";
    this.play.setAttribute("aria-pressed", "true");
    this.#scheduleNext();
  }

  stop() {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.play.textContent = "▶ play";
    this.play.setAttribute("aria-pressed", "false");
  }

  #scheduleNext() {
    const frames = this.recording?.frames ?? [];
    const at = Number(this.scrubber.value);
    if (at >= frames.length - 1) return this.stop();
    const wait = at < 0 ? 0 : Math.min(2000, Math.max(0, frames[at + 1].at - frames[at].at));
    this.timer = setTimeout(() => {
      this.move(at + 1);
      this.#scheduleNext();
    }, wait);
  }

  #moveByHand(index) {
    this.stop();
    this.move(index);
  }

  get active() {
    return this.recording !== undefined;
  }

  /** A `recording` message came: its frames, at the last one. */
  open(recording) {
    recording.frames ??= [];
    recording.sessions ??= [];
    this.stop();
    this.recording = recording;
    this.controls.hidden = false;
    const cut = [recording.cut, recording.differs].filter(Boolean).map((text) => ` — ${text}`).join("");
    this.name.textContent = `${recording.name}: ${recording.frames.length} inputs, sessions ${recording.sessions.join(", ") || "none"}${cut}`;
    this.scrubber.min = "-1";
    this.scrubber.max = String(recording.frames.length - 1);
    this.move(recording.frames.length - 1);
  }

  leave() {
    this.stop();
    this.recording = undefined;
    this.controls.hidden = true;
    this.onLeave();
  }

  /** Goes to frame `index` (-1: before the first input). */
  move(index) {
    if (!this.recording) return;
    const frames = this.recording.frames;
    const at = Math.max(-1, Math.min(frames.length - 1, index));
    this.scrubber.value = String(at);
    if (at < 0) {
      this.position.textContent = `0 / ${frames.length}: before the first input`;
    } else {
      const frame = frames[at];
      const action = frame.action ?? {};
      // The screens it names are in the tree before it (a dismissal takes them away) or after it.
      const names = namesOf(frame.tree);
      for (const [id, name] of namesOf(frames[at - 1]?.tree).screens) names.screens.set(id, name);
      this.position.textContent = `${at + 1} / ${frames.length}: ${describe(action, names)} at ${duration(frame.at)}` +
        (frame.skipped ? ` — ${frame.skipped}` : "") + (frame.refusal ? ` — refused: ${frame.refusal}` : "");
    }
    this.onPosition(at, frames);
  }

  /** The trees around a recorded event: its session's tree after the frame before the event's, and after the
   * event's own frame (a recording has a tree per frame, not per event). */
  treesAround(event) {
    const frames = this.recording?.frames ?? [];
    const index = frames.findIndex((frame) => (frame.events ?? []).some((e) => e.seq === event.seq));
    let before;
    for (let i = index - 1; i >= 0; i--) {
      if (frames[i].session === event.session) {
        before = { tree: frames[i].tree };
        break;
      }
    }
    return { before, after: index >= 0 ? { tree: frames[index].tree } : undefined };
  }
}

/** What the recording said of a step's fate when it was recorded (the replay may differ: then both show). */
function recorded(action) {
  if (!action.fate) return "";
  return action.reason ? ` (recorded: ${action.fate}, ${action.reason})` : ` (recorded: ${action.fate})`;
}

/** A screen by its number and, when the session's tree has it, its name. */
function screen(id, names) {
  const name = names?.screens?.get(id);
  return name ? `p${id} ${name}` : `p${id}`;
}

/** Milliseconds from the recording's start as the reader counts them: 412 ms, 3.2 s, 2 min 05 s. */
function duration(ms) {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.floor(ms / 1000);
  return `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, "0")} s`;
}

function describe(action, names) {
  switch (action.kind) {
    case "step":
      return `step ${stepText(action.step)} from ${action.stepper ?? `screen ${screen(action.presentable, names)}`}${recorded(action)}`;
    case "deepLink": return `deep link ${(action.path ?? []).map(stepText).join(" > ")}`;
    case "visibility": return `${action.presenter} reports ${(action.presentables ?? []).map((id) => screen(id, names)).join(", ")} ${action.visibility}`;
    case "sessionData": return `session data ${action.key} = ${JSON.stringify(action.value ?? null)}`;
    case "presenterLost": return `presenter ${action.presenter} lost`;
    default: return action.kind ?? "?";
  }
}
