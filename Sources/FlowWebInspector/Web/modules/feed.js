// The page's connection to flowctl web: a WebSocket to /feed that delivers each JSON message to `onMessage`, and
// connects again with a growing delay when flowctl goes away (it may be restarted), saying so through `onState`.

export class Feed {
  constructor({ onMessage, onState }) {
    this.onMessage = onMessage;
    this.onState = onState;
    this.delay = 250;
    this.socket = undefined;
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
      this.delay = 250;
      this.onState({ open: true });
      for (const message of this.queue.splice(0)) socket.send(message);
    });
    socket.addEventListener("message", (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      this.onMessage(message);
    });
    socket.addEventListener("close", () => {
      if (this.socket !== socket) return;
      this.onState({ open: false, retryIn: this.delay });
      setTimeout(() => this.open(), this.delay);
      this.delay = Math.min(this.delay * 2, 5000);
    });
  }

  /** Sends a message now, or once the connection is (back) open. */
  send(message) {
    const text = JSON.stringify(message);
    if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(text);
    else this.queue.splice(0, this.queue.length, ...this.queue.slice(-9), text);
  }
}
