// The timeline: one line per event (time, session, label, summary), newest at the bottom. It keeps up with a
// thousand events a second: new events are drawn once per animation frame, and the list holds at most the last
// `rows` lines that match the filters (the history holds more). A line is a button: selecting it shows the event.

import { clock, element, isDrop, senderOf, summary } from "./text.js";

export class TimelineView {
  constructor({ list, filters, onSelect, names, rows = 500 }) {
    this.list = list;
    this.filters = filters;
    this.onSelect = onSelect;
    this.names = names;
    this.rows = rows;
    this.pending = [];
    this.scheduled = false;
    this.selectedSeq = undefined;
  }

  /** Whether an event passes the filters. */
  matches(event) {
    const { session, stepper, fate, text } = this.filters();
    if (session && event.session !== session) return false;
    if (stepper && !senderOf(event).toLowerCase().includes(stepper.toLowerCase())) return false;
    if (fate === "steps" && event.kind !== "stepFate") return false;
    if (fate === "accepted" && !(event.kind === "stepFate" && event.fields?.accepted)) return false;
    if (fate === "dropped" && !isDrop(event)) return false;
    if (text) {
      const [label, line] = summary(event, this.names(event.session));
      const haystack = `${event.session} ${event.kind} ${label} ${line} ${event.fields?.remedy ?? ""}`.toLowerCase();
      if (!haystack.includes(text.toLowerCase())) return false;
    }
    return true;
  }

  /** Queues events to draw at the next frame. */
  append(events) {
    this.pending.push(...events);
    if (this.pending.length > this.rows * 4) this.pending.splice(0, this.pending.length - this.rows * 4);
    if (!this.scheduled) {
      this.scheduled = true;
      requestAnimationFrame(() => this.#flush());
    }
  }

  /** Draws `events` (the history) again from scratch: the filters changed. */
  redraw(events) {
    this.pending = [];
    const shown = [];
    for (let index = events.length - 1; index >= 0 && shown.length < this.rows; index--) {
      if (this.matches(events[index])) shown.push(events[index]);
    }
    this.list.replaceChildren(...shown.reverse().map((event) => this.#row(event)));
  }

  #flush() {
    this.scheduled = false;
    const events = this.pending.filter((event) => this.matches(event)).slice(-this.rows);
    this.pending = [];
    if (!events.length) return;
    const stuck = this.list.scrollHeight - this.list.scrollTop - this.list.clientHeight < 40;
    const fragment = document.createDocumentFragment();
    for (const event of events) fragment.append(this.#row(event));
    this.list.append(fragment);
    while (this.list.childElementCount > this.rows) this.list.firstElementChild.remove();
    if (stuck) this.list.scrollTop = this.list.scrollHeight;
  }

  #row(event) {
    const [label, line] = summary(event, this.names(event.session));
    const drop = isDrop(event);
    const row = element("li", `event kind-${event.kind}${drop ? " dropped" : ""}${event.seq === this.selectedSeq ? " selected" : ""}`);
    row.dataset.seq = event.seq;
    row.dataset.kind = event.kind;
    row.dataset.session = event.session;
    row.tabIndex = 0;
    row.append(
      element("span", "event-time", clock(event.at)),
      element("span", "event-session", event.session),
      element("span", `event-label label-${label}`, label),
      element("span", "event-summary", line),
    );
    if (event.instance) row.append(element("span", "event-instance", `@${event.instance}`));
    if (drop && event.fields?.remedy) row.append(element("div", "event-remedy", `remedy: ${event.fields.remedy}`));
    const choose = () => {
      for (const selected of this.list.querySelectorAll(".event.selected")) selected.classList.remove("selected");
      row.classList.add("selected");
      this.selectedSeq = event.seq;
      this.onSelect(event);
    };
    row.addEventListener("click", choose);
    row.addEventListener("keydown", (key) => {
      if (key.key === "Enter" || key.key === " ") choose();
    });
    return row;
  }
}
