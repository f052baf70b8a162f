// A recording opened in the page: the file's text goes to flowctl, which replays it with the flow file and sends
// back one frame per input (the input, the events it caused, its session's tree after it). The scrubber moves
// through the frames; the page's views follow it (the inspector wires that through `onPosition`).

import { stepText } from "./text.js";

export class RecordingView {
  constructor({ input, controls, scrubber, position, name, previous, next, live, send, onPosition, onLeave }) {
    Object.assign(this, { input, controls, scrubber, position, name, send, onPosition, onLeave });
    this.recording = undefined;
    input.addEventListener("change", async () => {
      const file = input.files?.[0];
      if (!file) return;
      const text = await file.text();
      this.send({ type: "openRecording", name: file.name, text });
      input.value = "";
    });
    scrubber.addEventListener("input", () => this.move(Number(scrubber.value)));
    previous.addEventListener("click", () => this.move(Number(scrubber.value) - 1));
    next.addEventListener("click", () => this.move(Number(scrubber.value) + 1));
    live.addEventListener("click", () => this.leave());
  }

  get active() {
    return this.recording !== undefined;
  }

  /** A `recording` message came: its frames, at the last one. */
  open(recording) {
    recording.frames ??= [];
    recording.sessions ??= [];
    this.recording = recording;
    this.controls.hidden = false;
    this.name.textContent = `${recording.name}: ${recording.frames.length} inputs, sessions ${recording.sessions.join(", ") || "none"}`;
    this.scrubber.min = "-1";
    this.scrubber.max = String(recording.frames.length - 1);
    this.move(recording.frames.length - 1);
  }

  leave() {
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
      this.position.textContent = `${at + 1} / ${frames.length}: ${describe(action)} at ${frame.at} ms` +
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

function describe(action) {
  switch (action.kind) {
    case "step":
      return `step ${stepText(action.step)} from ${action.stepper ?? `screen p${action.presentable}`}${recorded(action)}`;
    case "deepLink": return `deep link ${(action.path ?? []).map(stepText).join(" > ")}`;
    case "visibility": return `${action.presenter} reports ${(action.presentables ?? []).map((id) => `p${id}`).join(", ")} ${action.visibility}`;
    case "sessionData": return `session data ${action.key} = ${JSON.stringify(action.value ?? null)}`;
    case "presenterLost": return `presenter ${action.presenter} lost`;
    default: return action.kind ?? "?";
  }
}
