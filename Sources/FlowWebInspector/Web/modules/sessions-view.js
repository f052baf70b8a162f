// The sessions list: every session flowd has, live, with whether it is ready, the fleet instance that serves it, and
// its peers with their liveness; filtered by the box above it. A click selects a session.

import { duration, element } from "./text.js";

export class SessionsView {
  constructor({ list, filter, note, onSelect }) {
    this.list = list;
    this.filter = filter;
    this.note = note;
    this.onSelect = onSelect;
    this.sessions = [];
    this.selected = undefined;
    this.ended = new Set();
    filter.addEventListener("input", () => this.draw());
  }

  update(sessions) {
    for (const known of this.sessions) {
      if (!sessions.some((s) => s.session === known.session)) this.ended.add(known.session);
    }
    for (const session of sessions) this.ended.delete(session.session);
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
    const rows = [];
    let shown = 0;
    for (const session of this.sessions) {
      const matches = !wanted || session.session.toLowerCase().includes(wanted) ||
        (session.instance ?? "").toLowerCase().includes(wanted) ||
        session.peers.some((p) => `${p.name} ${p.id}`.toLowerCase().includes(wanted));
      const row = element("li", `session${session.session === this.selected ? " selected" : ""}`);
      row.dataset.session = session.session;
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
      const peers = element("ul", "peers");
      for (const peer of session.peers) {
        const item = element(
          "li",
          `peer ${peer.alive ? "alive" : "silent"}`,
          `${peer.role} ${peer.name} (${peer.id}) — ${peer.alive ? "heard" : "silent for"} ${duration(peer.lastHeardMs)}${peer.alive ? " ago" : ""}`,
        );
        peers.append(item);
      }
      if (!session.peers.length) peers.append(element("li", "peer none", "no peer connected"));
      row.append(peers);
      row.addEventListener("click", () => this.onSelect(session.session));
      rows.push(row);
    }
    this.list.replaceChildren(...rows);
    this.note.textContent = this.sessions.length
      ? `${this.sessions.length} session${this.sessions.length === 1 ? "" : "s"}${wanted ? `, ${shown} shown` : ""}`
      : "flowd has no session yet";
  }
}
