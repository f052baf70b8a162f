// The sessions list: every session flowd has, live, with whether it is ready, the fleet instance that serves it, and
// its peers with their liveness; filtered by the box above it. A click (or Enter) selects a session.

import { duration, element } from "./text.js";

export class SessionsView {
  constructor({ list, filter, note, onSelect }) {
    this.list = list;
    this.filter = filter;
    this.note = note;
    this.onSelect = onSelect;
    this.sessions = [];
    this.selected = undefined;
    filter.addEventListener("input", () => this.draw());
    // One listener for the list: it is drawn again every second.
    const choose = (target) => {
      const row = target.closest?.(".session");
      if (row) this.onSelect(row.dataset.session);
    };
    // Chosen as the button goes down, not on "click": the list is drawn again every second, and a press whose down
    // and up fall on either side of a redraw would make no click.
    list.addEventListener("pointerdown", (press) => {
      if (press.button === 0) choose(press.target);
    });
    list.addEventListener("keydown", (key) => {
      if (key.key === "Enter") choose(key.target);
    });
  }

  update(sessions) {
    this.sessions = sessions;
    this.draw();
  }

  has(session) {
    return this.sessions.some((s) => s.session === session);
  }

  select(session) {
    this.selected = session;
    this.draw();
  }

  draw() {
    const wanted = this.filter.value.trim().toLowerCase();
    const focused = document.activeElement?.closest?.(".session")?.dataset.session;
    const rows = [];
    let shown = 0;
    for (const session of this.sessions) {
      const peers = session.peers ?? [];
      const matches = !wanted || session.session.toLowerCase().includes(wanted) ||
        (session.instance ?? "").toLowerCase().includes(wanted) ||
        peers.some((p) => `${p.name} ${p.id}`.toLowerCase().includes(wanted));
      const row = element("li", `session${session.session === this.selected ? " selected" : ""}${session.ready ? " ready" : " not-ready"}`);
      row.dataset.session = session.session;
      row.tabIndex = 0;
      row.hidden = !matches;
      if (matches) shown++;
      row.append(
        element("div", "session-id", session.session),
        element(
          "div",
          "session-meta",
          `${session.ready ? "ready" : "not ready"} · ${session.flows} flows · age ${duration(session.ageMs)} · idle ${duration(session.idleMs)}` +
            (session.instance ? ` · instance ${session.instance}` : ""),
        ),
      );
      const list = element("ul", "peers");
      for (const peer of peers) {
        list.append(element(
          "li",
          `peer ${peer.alive ? "alive" : "silent"}`,
          `${peer.role} ${peer.name} (${peer.id}) — ${peer.alive ? "alive, heard" : "silent, last heard"} ${duration(peer.lastHeardMs)} ago`,
        ));
      }
      if (!peers.length) list.append(element("li", "peer none", "no peer connected"));
      row.append(list);
      rows.push(row);
    }
    this.list.replaceChildren(...rows);
    // Drawn again every second: the row the keyboard was on keeps the focus.
    if (focused) this.list.querySelector(`.session[data-session="${CSS.escape(focused)}"]`)?.focus();
    this.note.textContent = this.sessions.length
      ? `${this.sessions.length} session${this.sessions.length === 1 ? "" : "s"}${wanted ? `, ${shown} shown` : ""}`
      : "flowd has no session";
  }
}
