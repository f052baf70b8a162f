// The page's connection to flowctl web: a WebSocket to /feed that delivers each JSON message to `onMessage`, and
// connects again with a growing delay when flowctl goes away (it may be restarted), saying so through `onState`.
// flowctl sends `hello` again on every connection, so the page learns afresh what it is talking to.

const firstDelay = 250;
const longestDelay = 5000;

export class Feed {
  constructor({ onMessage, onState, onUnreadable }) {
    this.onMessage = onMessage;
    this.onState = onState;
    this.onUnreadable = onUnreadable;
    this.delay = firstDelay;
    this.socket = undefined;
    this.opened = false; // whether a connection ever opened: "stopped" then, "cannot reach" before
    this.queue = [];
    this.open();
  }

  get url() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    return `${scheme}//${location.host}/feed`;
  }

  open() {
    const socket = new WebSocket(this.url);
    this.socket = socket;
    socket.addEventListener("open", () => {
      this.delay = firstDelay;
      this.opened = true;
      this.onState({ open: true });
      for (const message of this.queue.splice(0)) socket.send(message);
    });
    socket.addEventListener("message", (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        this.onUnreadable?.(String(event.data).slice(0, 120));
        return;
      }
      this.onMessage(message);
    });
    socket.addEventListener("close", () => {
      if (this.socket !== socket) return;
      this.onState({ open: false, retryIn: this.delay, wasOpen: this.opened });
      setTimeout(() => this.open(), this.delay);
      this.delay = Math.min(this.delay * 2, longestDelay);
    });
  }

  /** Sends a message now, or once the connection is (back) open (the last ten wait; older ones are stale).
   * `now`: only on the connection open now, never on the next (a question about this connection's events). */
  send(message, { now = false } = {}) {
    const text = JSON.stringify(message);
    if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(text);
    else if (!now) this.queue.splice(0, this.queue.length, ...this.queue.slice(-9), text);
  }
}
