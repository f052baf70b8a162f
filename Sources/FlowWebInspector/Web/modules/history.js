// What the page keeps, bounded: the last `limit` events (a ring: the oldest go first), the events that came while
// paused (kept, but bounded by the same limit), and per session the trees flowctl sent, by the number of the event
// they follow (the last 1000 per session).

export class History {
  constructor(limit) {
    this.limit = limit;
    this.events = [];
    this.waiting = [];
    this.paused = false;
    this.dropped = 0;
    this.trees = new Map();
  }

  /** Adds events; returns those to draw now (none while paused). */
  add(events) {
    if (this.paused) {
      this.waiting.push(...events);
      if (this.waiting.length > this.limit) this.waiting.splice(0, this.waiting.length - this.limit);
      return [];
    }
    this.#keep(events);
    return events;
  }

  /** Resumes: the events that waited are kept and returned to draw. */
  resume() {
    this.paused = false;
    const waiting = this.waiting.splice(0);
    this.#keep(waiting);
    return waiting;
  }

  #keep(events) {
    this.events.push(...events);
    const over = this.events.length - this.limit;
    if (over > 0) {
      this.events.splice(0, over);
      this.dropped += over;
    }
  }

  clear() {
    this.events = [];
    this.waiting = [];
    this.trees = new Map();
  }

  /** Keeps a session's tree as it was after event `seq`. */
  addTree(session, seq, tree) {
    let trees = this.trees.get(session);
    if (!trees) this.trees.set(session, (trees = []));
    // Kept in order of seq: a tree asked earlier may come after one asked later.
    let index = trees.length;
    while (index > 0 && trees[index - 1].seq > seq) index--;
    trees.splice(index, 0, { seq, tree });
    if (trees.length > 1000) trees.splice(0, trees.length - 1000);
  }

  /** The latest tree of `session` taken before event `seq`, and the first taken at or after it. */
  around(session, seq) {
    const trees = this.trees.get(session) ?? [];
    let before;
    let after;
    for (const entry of trees) {
      if (entry.seq < seq) before = entry;
      else if (!after) after = entry;
    }
    return { before, after };
  }

  latestTree(session) {
    const trees = this.trees.get(session);
    return trees?.[trees.length - 1]?.tree;
  }
}
