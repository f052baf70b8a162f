// The timeline: one line per event (time, session, label, summary), newest at the bottom, and the selected event's
// detail. It keeps up with a thousand events a second: events are matched against the filters as they come, drawn
// once per animation frame, and the list holds at most the last `rows` lines that match (the history holds more).
// Rows are never drawn again one by one: only a change of filters (or of what is shown) redraws the list.

import { clock, element, isDrop, senderOf, summary } from "./text.js";

/** What "what happened" leaves out, as `flowctl watch` does by default: the inputs and intermediate steps that its
 * other events say again (a step received before its fate, a flow about to navigate before it navigated, a report
 * before the visibility it changed, a flow ready), and inspectors coming and going (flowctl itself, mostly). */
const repeated = new Set(["stepReceived", "willNavigate", "flowReady", "visibilityReported"]);

function happened(event) {
  if (repeated.has(event.kind)) return false;
  return !((event.kind === "registered" || event.kind === "unregistered") && event.fields?.role === "inspector");
}

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
    // Whether the list follows the newest lines: true until the reader scrolls up. Kept from scroll events, so that
    // drawing a frame never has to measure the list before changing it (one layout per frame, not two).
    this.following = true;
    list.addEventListener("scroll", () => {
      this.following = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
    }, { passive: true });
    // The event each row shows; rows that leave the list take their entry with them.
    this.eventOf = new WeakMap();
    // One listener for the whole list, not two per row: rows come and go a thousand times a second.
    list.addEventListener("click", (click) => this.#choose(click.target.closest?.(".event")));
    list.addEventListener("keydown", (key) => {
      if (key.key === "Enter" || key.key === " ") {
        key.preventDefault();
        this.#choose(key.target.closest?.(".event"));
      }
    });
  }

  /** A test of the filters as they are now (read once, then applied to many events). */
  matcher() {
    const { session, stepper, fate, text } = this.filters();
    const sender = stepper.toLowerCase();
    const words = text.toLowerCase();
    return (event) => {
      if (session && event.session !== session) return false;
      if (sender && !senderOf(event, this.names(event.session)).toLowerCase().includes(sender)) return false;
      if (fate === "happened" && !happened(event)) return false;
      if (fate === "steps" && event.kind !== "stepFate") return false;
      if (fate === "accepted" && !(event.kind === "stepFate" && event.fields?.accepted === true)) return false;
      if (fate === "dropped" && !isDrop(event)) return false;
      if (words) {
        const [label, line] = summary(event, this.names(event.session));
        const haystack = `${event.session} ${event.kind} ${label} ${line} ${event.fields?.remedy ?? ""}`.toLowerCase();
        if (!haystack.includes(words)) return false;
      }
      return true;
    };
  }

  /** Queues new events to draw at the next frame: only those that match, and no more than the list can hold. */
  append(events) {
    if (!events.length) return;
    const matches = this.matcher();
    for (const event of events) if (matches(event)) this.pending.push(event);
    if (this.pending.length > this.rows) this.pending.splice(0, this.pending.length - this.rows);
    if (this.pending.length && !this.scheduled) {
      this.scheduled = true;
      requestAnimationFrame(() => this.#flush());
    }
  }

  /** Draws `events` (the history, or a recording up to its position) again from scratch. */
  redraw(events) {
    this.pending = [];
    const matches = this.matcher();
    const shown = [];
    for (let index = events.length - 1; index >= 0 && shown.length < this.rows; index--) {
      if (matches(events[index])) shown.push(events[index]);
    }
    this.list.replaceChildren(...shown.reverse().map((event) => this.#row(event)));
    this.following = true;
    this.list.scrollTop = this.list.scrollHeight;
  }

  clearSelection() {
    this.selectedSeq = undefined;
    for (const selected of this.list.querySelectorAll(".event.selected")) selected.classList.remove("selected");
  }

  #flush() {
    this.scheduled = false;
    const events = this.pending;
    this.pending = [];
    if (!events.length) return;
    const fragment = document.createDocumentFragment();
    for (const event of events) fragment.append(this.#row(event));
    this.list.append(fragment);
    let over = this.list.childElementCount - this.rows;
    while (over-- > 0) this.list.firstElementChild.remove();
    // Scrolled up, the reader keeps their place; at the bottom, they see the newest lines.
    if (this.following) this.list.scrollTop = this.list.scrollHeight;
  }

  #row(event) {
    const [label, line] = summary(event, this.names(event.session));
    const drop = isDrop(event);
    const row = element("li", `event kind-${event.kind}${drop ? " dropped" : ""}`);
    if (event.seq === this.selectedSeq) row.classList.add("selected");
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
    this.eventOf.set(row, event);
    return row;
  }

  #choose(row) {
    const event = row && this.eventOf.get(row);
    if (!event) return;
    this.clearSelection();
    row.classList.add("selected");
    this.selectedSeq = event.seq;
    this.onSelect(event);
  }
}

/** Draws an event's detail: its heading, its summary, a step's fate with the drop's explanation and remedy, and
 * every field as JSON text. */
export function drawEventDetail(container, event, names) {
  const [label, line] = summary(event, names);
  const lines = [
    element("div", "detail-head", `#${event.seq} ${clock(event.at)} · session ${event.session} · ${event.kind}`),
    element("div", "detail-summary", `${label}: ${line}`),
  ];
  if (event.instance) lines.push(element("div", "detail-instance", `fleet instance ${event.instance}`));
  if (event.kind === "stepFate") {
    const f = event.fields ?? {};
    const drop = isDrop(event);
    lines.push(element("div", drop ? "fate dropped" : "fate accepted", drop ? `fate: dropped (${f.reason ?? "?"})` : "fate: accepted"));
    if (f.explanation) lines.push(element("div", "explanation", `why: ${f.explanation}`));
    if (f.remedy) lines.push(element("div", "remedy", `remedy: ${f.remedy}`));
  }
  lines.push(element("pre", "fields", JSON.stringify(event.fields ?? {}, null, 2)));
  container.replaceChildren(...lines);
}
