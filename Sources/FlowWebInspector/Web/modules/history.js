// What the page keeps, bounded whatever the rate: the last `limit` events (the oldest go first), the events that
// came while paused (kept to show on resume, bounded by the same limit, and counted when some had to go), and per
// session the trees flowctl sent, by the number of the event they follow (the last `treesPerSession`).

export class History {
  constructor(limit, treesPerSession = 1000) {
    this.limit = limit;
    this.treesPerSession = treesPerSession;
    this.events = [];
    this.waiting = [];
    this.paused = false;
    this.letGo = 0; // events that left the history (the oldest), in all
    this.letGoWhilePaused = 0; // of those that waited during this pause
    this.trees = new Map();
  }

  /** The history for a new connection: no events (the feed sends its last ones again), and each session's latest
   * tree kept as if taken before them all, so a session that ended meanwhile still shows its last tree (it is not
   * taken for the tree before any event: see `around`). */
  restarted(limit) {
    const next = new History(limit, this.treesPerSession);
    for (const [session, trees] of this.trees) {
      if (trees.length) next.trees.set(session, [{ seq: -Infinity, tree: trees[trees.length - 1].tree }]);
    }
    return next;
  }

  /** Adds events; returns those to draw now (none while paused). */
  add(events) {
    if (this.paused) {
      this.letGoWhilePaused += append(this.waiting, events, this.limit);
      return [];
    }
    this.letGo += append(this.events, events, this.limit);
    return events;
  }

  pause() {
    this.paused = true;
    this.letGoWhilePaused = 0;
  }

  /** Resumes: the events that waited are kept and returned to draw. */
  resume() {
    this.paused = false;
    const waiting = this.waiting;
    this.waiting = [];
    this.letGo += append(this.events, waiting, this.limit);
    return waiting;
  }

  /** Keeps a session's tree as it was after event `seq`. */
  addTree(session, seq, tree) {
    let trees = this.trees.get(session);
    if (!trees) this.trees.set(session, (trees = []));
    // Kept in order of seq: a tree asked earlier may come after one asked later.
    let index = trees.length;
    while (index > 0 && trees[index - 1].seq > seq) index--;
    trees.splice(index, 0, { seq, tree });
    if (trees.length > this.treesPerSession) trees.splice(0, trees.length - this.treesPerSession);
  }

  /**
   * The latest tree of `session` taken before event `seq`, and the first taken at or after it. Without a tree
   * before it, the page was not following the session's tree then: the first tree after it may be long after, so
   * neither is given.
   */
  around(session, seq) {
    const trees = this.trees.get(session) ?? [];
    let before;
    let after;
    for (const entry of trees) {
      // A tree kept from before a reconnection says nothing of when it was taken.
      if (entry.seq === -Infinity) continue;
      if (entry.seq < seq) before = entry;
      else if (!after) after = entry;
    }
    return before ? { before, after } : { before: undefined, after: undefined, unfollowed: true };
  }

  latestTree(session) {
    const trees = this.trees.get(session);
    return trees?.[trees.length - 1]?.tree;
  }
}

/** Appends `items` to `list`, then drops its oldest beyond `limit`; returns how many were dropped. A loop, not
 * `push(...items)`: a long pause can hand back more items than a call may take arguments. */
function append(list, items, limit) {
  for (const item of items) list.push(item);
  const over = list.length - limit;
  if (over > 0) list.splice(0, over);
  return Math.max(over, 0);
}
