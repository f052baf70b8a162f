// flowbus.js: the FlowBus protocol over WebSocket, for web pages (and any JavaScript runtime with a WebSocket).
//
// One ES module, no dependency, no build step. flowd serves it at /flowbus.js when its WebSocket endpoint is on
// (`flowd --websocket 127.0.0.1:5862`); its types are in flowbus.d.ts beside it. The protocol it speaks is the
// specification's ("Over WebSocket"); what it does is what the Swift client does ("A client, step by step"):
// HELLO on every connection, steps kept until their STEP_ACK and sent again after a reconnect (never applied twice),
// the resync rule for presenters, heartbeats, a fleet's URLs tried in turn, and errors with the specification's
// codes.

/** The protocol version this client speaks. */
export const PROTOCOL_VERSION = 1;
/** The WebSocket subprotocol flowd's endpoint answers. */
export const SUBPROTOCOL = "flowbus.v1";

const PROTOCOL_FRAME = "FLOWBUS/1";
const TOKEN_PREFIX = "flowbus.token.";
/** Close codes that retrying will not change: the URL's id, the token. */
const FATAL_CLOSE_CODES = new Map([
  [4400, "invalidOptions"],
  [4401, "notAllowed"],
  [4403, "idNotAllowed"],
  [4409, "replaced"],
]);

/**
 * An error with a code: one of the specification's (`unknownStep`, `notAllowed`, `storeUnavailable`...) when flowd
 * refused something, or one of this client's: `unreachable` (flowd did not answer within the connect timeout),
 * `invalidOptions`, `closed` (the client is closed), `queueFull`, `replaced` (another connection took this id),
 * `timedOut`.
 */
export class FlowBusError extends Error {
  constructor(code, message, details = {}) {
    super(`${code}: ${message}`);
    this.name = "FlowBusError";
    /** The code. */
    this.code = code;
    /** What happened, in words. */
    this.detail = message;
    Object.assign(this, details);
  }
}

/** A step: `step("movieIsPicked", {withId: 23452})`. */
export function step(name, parameters = {}) {
  return { name, parameters };
}

function normalizedStep(value, parameters) {
  if (typeof value === "string") return step(value, parameters ?? {});
  if (value && typeof value === "object" && typeof value.name === "string") {
    return { name: value.name, parameters: value.parameters ?? {} };
  }
  throw new FlowBusError("invalidOptions", "a step is a name and parameters: step(\"movieIsPicked\", {withId: 1})");
}

/** A deep link's steps, checked: at least one, each a step. */
function deepLinkPath(path) {
  if (!Array.isArray(path) || path.length === 0) {
    throw new FlowBusError("invalidOptions", "a deep link is a list of at least one step");
  }
  return path.map((item) => normalizedStep(item));
}

/** The URL of the endpoint that served this module, if it was flowd's (`ws://host:port/flowbus`). */
function defaultURL() {
  try {
    const served = new URL("/flowbus", import.meta.url);
    if (served.protocol === "http:") served.protocol = "ws:";
    else if (served.protocol === "https:") served.protocol = "wss:";
    else return undefined;
    return served.toString();
  } catch {
    return undefined;
  }
}

// MARK: The text of a WebSocket message

/** The text of a protocol message: `FLOWBUS/1`, its type, its header and its body, a line each. */
export function encode(type, header, body) {
  return `${PROTOCOL_FRAME}\n${type}\n${JSON.stringify(header)}\n${JSON.stringify(body)}`;
}

/** Reads one of flowd's messages: `{topic, type, header, body}` (`topic` for a published one), or throws. */
export function decode(text) {
  let topic;
  let rest = text;
  if (rest.startsWith("PUBLISH\n")) {
    const end = rest.indexOf("\n", 8);
    if (end < 0) throw new Error("a published message without its frames");
    topic = rest.slice(8, end);
    rest = rest.slice(end + 1);
  }
  const frames = [];
  let start = 0;
  while (frames.length < 3) {
    const end = rest.indexOf("\n", start);
    if (end < 0) throw new Error("fewer than four frames");
    frames.push(rest.slice(start, end));
    start = end + 1;
  }
  frames.push(rest.slice(start));
  if (!frames[0].startsWith("FLOWBUS/")) throw new Error("not a FlowBus message");
  if (frames[0] !== PROTOCOL_FRAME) throw new Error(`another protocol version (${frames[0]})`);
  return { topic, type: frames[1], header: JSON.parse(frames[2]), body: JSON.parse(frames[3]) };
}

// MARK: The screens

/**
 * A presenter's screens as flowd's commands build them: nodes by presentable id, each with its description
 * (`id`, `name`, `style`, `parameters`, `flow`), its `parent`, its `placement` (`windowRoot`, `stackItem`, `tab`,
 * `master`, `detail`, `modal`), and what it holds: `items` (a stack's, bottom first; a tab container's, in order),
 * `selectedTab`, `master`, `detail`, `presented` (the modal over it).
 */
export class ScreenTree {
  constructor() {
    /** @type {Map<number, object>} */
    this.nodes = new Map();
    /** The window's root presentable id, or undefined. */
    this.root = undefined;
  }

  /** A copy, to keep as it is now. */
  copy() {
    const copy = new ScreenTree();
    copy.root = this.root;
    for (const [id, node] of this.nodes) copy.nodes.set(id, { ...node, items: [...node.items] });
    return copy;
  }

  /** The node of presentable `id`. */
  get(id) {
    return this.nodes.get(id);
  }

  /** Applies one command; throws (changing nothing) when it does not fit the screens. */
  apply(command) {
    const fail = (why) => {
      throw new FlowBusError("commandDoesNotFit", `${command.op}: ${why}`);
    };
    const container = (id, style) => {
      const node = this.nodes.get(id);
      if (!node) fail(`${id} is not on screen`);
      if (style && node.style !== style) fail(`${id} (${node.name}) is a ${node.style}, not a ${style}`);
      return node;
    };
    const placeable = (description) => {
      if (!description || typeof description.id !== "number") fail("no presentable");
      if (this.nodes.has(description.id)) fail(`${description.id} is on screen already`);
    };
    switch (command.op) {
      case "setWindowRoot":
        placeable(command.presentable);
        if (this.root !== undefined) this.#remove(this.root);
        this.#insert(command.presentable, undefined, "windowRoot");
        this.root = command.presentable.id;
        break;
      case "push": {
        placeable(command.presentable);
        const stack = container(command.container, "stack");
        this.#insert(command.presentable, stack.id, "stackItem");
        stack.items.push(command.presentable.id);
        break;
      }
      case "pop": {
        const stack = container(command.container, "stack");
        const index = stack.items.indexOf(command.target);
        if (index < 0) fail(`${command.target} is not an item of the stack ${stack.id}`);
        for (const item of stack.items.slice(index + 1).reverse()) this.#remove(item);
        break;
      }
      case "present": {
        placeable(command.presentable);
        const host = container(command.container);
        if (host.presented !== undefined) fail(`${host.id} already presents ${host.presented}`);
        this.#insert(command.presentable, host.id, "modal");
        host.presented = command.presentable.id;
        break;
      }
      case "dismiss": {
        const node = container(command.target);
        const parent = node.parent === undefined ? undefined : this.nodes.get(node.parent);
        if (node.placement === "stackItem" && parent) {
          const index = parent.items.indexOf(node.id);
          for (const item of parent.items.slice(index + 1).reverse()) this.#remove(item);
        }
        this.#remove(node.id);
        break;
      }
      case "setTabs": {
        const tabs = container(command.container, "tabs");
        const descriptions = command.tabs ?? [];
        const selected = command.selected ?? 0;
        if (descriptions.length === 0 ? selected !== 0 : selected < 0 || selected >= descriptions.length) {
          fail(`tab ${selected} does not exist (${descriptions.length} tabs)`);
        }
        descriptions.forEach(placeable);
        for (const item of [...tabs.items].reverse()) this.#remove(item);
        for (const description of descriptions) this.#insert(description, tabs.id, "tab");
        tabs.items = descriptions.map((d) => d.id);
        tabs.selectedTab = descriptions.length === 0 ? undefined : selected;
        break;
      }
      case "selectTab": {
        const tabs = container(command.container, "tabs");
        if (command.index < 0 || command.index >= tabs.items.length) fail(`tab ${command.index} does not exist`);
        tabs.selectedTab = command.index;
        break;
      }
      case "setMaster":
      case "setDetail": {
        placeable(command.presentable);
        const split = container(command.container, "split");
        const key = command.op === "setMaster" ? "master" : "detail";
        if (split[key] !== undefined) this.#remove(split[key]);
        this.#insert(command.presentable, split.id, key);
        split[key] = command.presentable.id;
        break;
      }
      default:
        fail("an operation this client does not know");
    }
  }

  #insert(description, parent, placement) {
    this.nodes.set(description.id, {
      id: description.id,
      name: description.name,
      style: description.style,
      parameters: description.parameters ?? {},
      flow: description.flow,
      parent,
      placement,
      items: [],
      selectedTab: undefined,
      master: undefined,
      detail: undefined,
      presented: undefined,
    });
  }

  /** Removes a node with everything it holds, and unhooks it from its parent. */
  #remove(id) {
    const node = this.nodes.get(id);
    if (!node) return;
    for (const child of this.children(id)) this.#remove(child.id);
    this.nodes.delete(id);
    if (this.root === id) this.root = undefined;
    const parent = node.parent === undefined ? undefined : this.nodes.get(node.parent);
    if (!parent) return;
    if (parent.presented === id) parent.presented = undefined;
    if (parent.master === id) parent.master = undefined;
    if (parent.detail === id) parent.detail = undefined;
    const index = parent.items.indexOf(id);
    if (index >= 0) {
      parent.items.splice(index, 1);
      if (parent.style === "tabs" && parent.selectedTab !== undefined) {
        if (parent.items.length === 0) parent.selectedTab = undefined;
        else if (parent.selectedTab >= index && parent.selectedTab > 0) parent.selectedTab -= 1;
      }
    }
  }

  /** What `id` holds or presents, in drawing order: its items (or master, then detail), then its modal. */
  children(id) {
    const node = this.nodes.get(id);
    if (!node) return [];
    const ids = [...node.items, node.master, node.detail, node.presented].filter((c) => c !== undefined);
    return ids.map((c) => this.nodes.get(c)).filter(Boolean);
  }

  /** What the user sees, bottom first: containers and screens; a modal anywhere covers all of what is under it. */
  visible() {
    return this.root === undefined ? [] : this.#visibleFrom(this.root).map((id) => this.nodes.get(id));
  }

  #visibleFrom(id) {
    const shown = this.#shownIgnoringModals(id);
    for (let index = shown.length - 1; index >= 0; index -= 1) {
      const modal = this.nodes.get(shown[index]).presented;
      if (modal !== undefined) return this.#visibleFrom(modal);
    }
    return shown;
  }

  #shownIgnoringModals(id) {
    const node = this.nodes.get(id);
    if (!node) return [];
    const result = [id];
    if (node.style === "stack" && node.items.length > 0) {
      result.push(...this.#shownIgnoringModals(node.items[node.items.length - 1]));
    } else if (node.style === "tabs" && node.selectedTab !== undefined && node.items[node.selectedTab] !== undefined) {
      result.push(...this.#shownIgnoringModals(node.items[node.selectedTab]));
    } else if (node.style === "split") {
      for (const part of [node.master, node.detail]) {
        if (part !== undefined) result.push(...this.#shownIgnoringModals(part));
      }
    }
    return result;
  }

  /** The screen (not a container) on top of what the user sees: the one a tap goes to. */
  topmostVisibleScreen() {
    return this.visible().filter((node) => node.style === "screen").pop();
  }

  /** The visible presentable named `name` nearest the top, if the user sees one. */
  visibleScreen(name) {
    return this.visible().filter((node) => node.name === name).pop();
  }

  /** The window as an indented outline, one presentable a line. */
  toString() {
    if (this.root === undefined) return "(nothing on screen)";
    const lines = [];
    const walk = (id, depth) => {
      const node = this.nodes.get(id);
      const tab = node.style === "tabs" && node.selectedTab !== undefined ? ` selected ${node.selectedTab}` : "";
      lines.push(`${"  ".repeat(depth)}p${id} ${node.style} ${node.name} (${node.placement})${tab}`);
      for (const child of this.children(id)) walk(child.id, depth + 1);
    };
    walk(this.root, 0);
    return lines.join("\n");
  }
}

// MARK: The connection

/**
 * One peer's connection to flowd: it connects (trying each URL of a fleet in turn), says HELLO on every new
 * connection and after `notRegistered`, keeps heartbeats going, and reconnects with backoff when the connection is
 * lost. The roles below are built on it.
 */
class Link extends EventTarget {
  constructor(options, role) {
    super();
    const urls = options.urls ?? (options.url ? [options.url] : [defaultURL()].filter(Boolean));
    if (urls.length === 0) {
      throw new FlowBusError("invalidOptions", "give flowd's WebSocket URL: {url: \"ws://127.0.0.1:5862/flowbus\"}");
    }
    if ((role === "stepper" || role === "presenter") && !options.session) {
      throw new FlowBusError("invalidOptions", `a ${role} names its session: {session: "kiosk-7"}`);
    }
    this.role = role;
    this.urls = urls;
    this.session = options.session;
    this.name = options.name ?? (role === "presenter" ? "main" : role === "stepper" ? "app" : role);
    this.id = options.id ?? (this.session ? `${this.session}/${this.name}` : `${this.name}-${randomSuffix()}`);
    this.token = options.token;
    this.connectTimeout = options.connectTimeout ?? 5000;
    this.WebSocket = options.WebSocket ?? globalThis.WebSocket;
    this.log = options.log ?? (() => {});
    this.urlIndex = 0;
    this.socket = undefined;
    this.registered = false;
    this.closed = false;
    this.welcome = undefined;
    this.epoch = undefined;
    this.nextID = 1;
    this.heartbeatInterval = 1000;
    this.heartbeatTimeout = 5000;
    this.lastSent = 0;
    this.lastHeard = 0;
    this.backoff = 200;
    this.timer = undefined;
    this.replies = new Map();
    this.subscriptions = [];
    this.fatal = undefined;
    this.storeRetry = undefined;
    this.ready = new Promise((resolve, reject) => {
      this.resolveReady = resolve;
      this.rejectReady = reject;
    });
    this.ready.catch(() => {});
    this.connectDeadline = Date.now() + this.connectTimeout;
    this.readyTimer = setTimeout(() => {
      if (this.welcome === undefined) {
        this.#fail(
          new FlowBusError(
            "unreachable",
            `flowd did not welcome this ${role} within ${this.connectTimeout} ms at ${this.urls.join(", ")}` +
              (this.lastProblem ? ` (${this.lastProblem})` : " (is flowd running with --websocket?)"),
          ),
        );
      }
    }, this.connectTimeout);
    this.#open();
  }

  /** The body of this peer's HELLO. */
  hello() {
    const hello = { role: this.role, id: this.id, name: this.name, protocolVersion: PROTOCOL_VERSION, capabilities: [] };
    if (this.session !== undefined) hello.session = this.session;
    return hello;
  }

  #open() {
    if (this.closed) return;
    const url = new URL(this.urls[this.urlIndex % this.urls.length]);
    url.searchParams.set("id", this.id);
    const protocols = [SUBPROTOCOL];
    if (this.token) protocols.push(TOKEN_PREFIX + this.token);
    let socket;
    try {
      socket = new this.WebSocket(url.toString(), protocols);
    } catch (error) {
      this.#fail(new FlowBusError("invalidOptions", `cannot open ${url}: ${error.message}`));
      return;
    }
    this.socket = socket;
    socket.onopen = () => {
      if (socket !== this.socket) return;
      this.lastHeard = Date.now();
      for (const topic of this.subscriptions) socket.send(`SUBSCRIBE\n${topic}`);
      this.#sayHello();
      this.#schedule();
    };
    socket.onmessage = (event) => {
      if (socket !== this.socket) return;
      this.lastHeard = Date.now();
      let message;
      try {
        message = decode(typeof event.data === "string" ? event.data : "");
      } catch (error) {
        this.log(`ignored a message from flowd: ${error.message}`);
        return;
      }
      this.#receive(message);
    };
    socket.onclose = (event) => {
      if (socket !== this.socket) return;
      this.#lost(event.code, event.reason);
    };
    socket.onerror = () => {};
  }

  #sayHello() {
    this.send("HELLO", this.hello(), { session: this.session });
  }

  /** Sends a message now; returns its id, or undefined when there is no open connection. */
  send(type, body, { session = this.session, correlation } = {}) {
    if (!this.socket || this.socket.readyState !== 1) return undefined;
    const id = this.nextID++;
    const header = { id, sentAt: Date.now() };
    if (session !== undefined) header.session = session;
    if (this.registered) header.sender = this.id;
    if (correlation !== undefined) header.correlation = correlation;
    this.socket.send(encode(type, header, body));
    this.lastSent = Date.now();
    return id;
  }

  /** Sends a request and waits for the message that answers it (`correlation`): a REPLY, SNAPSHOT or ERROR. */
  request(type, body, options = {}) {
    return new Promise((resolve, reject) => {
      const attempt = () => {
        const id = this.send(type, body, options);
        if (id === undefined) {
          reject(new FlowBusError("unreachable", "not connected to flowd"));
          return;
        }
        this.replies.set(id, { resolve, reject });
      };
      if (this.registered) attempt();
      else this.ready.then(attempt, reject);
    });
  }

  /** Subscribes to a topic on this and every later connection. */
  subscribe(topic) {
    if (this.subscriptions.includes(topic)) return;
    this.subscriptions.push(topic);
    if (this.socket && this.socket.readyState === 1) this.socket.send(`SUBSCRIBE\n${topic}`);
  }

  unsubscribe(topic) {
    this.subscriptions = this.subscriptions.filter((t) => t !== topic);
    if (this.socket && this.socket.readyState === 1) this.socket.send(`UNSUBSCRIBE\n${topic}`);
  }

  #receive(message) {
    const { type, header, body, topic } = message;
    if (topic !== undefined) {
      this.dispatchEvent(new CustomEvent("published", { detail: message }));
      return;
    }
    const waiting = header.correlation !== undefined ? this.replies.get(header.correlation) : undefined;
    switch (type) {
      case "WELCOME":
        this.#welcomed(body);
        return;
      case "REDIRECT":
        // Another instance of the fleet serves the session: try the next URL (a lost connection moves on to it).
        this.lastProblem = `redirected to instance ${body.instance}`;
        this.#reconnect();
        return;
      case "HEARTBEAT":
        return;
      case "ERROR":
        if (body.code === "notRegistered") {
          this.registered = false;
          this.#sayHello();
        } else if (body.code === "storeUnavailable" && !this.registered) {
          this.lastProblem = `flowd's store does not answer: ${body.message}`;
          this.#retryHello();
        } else if (!this.registered && this.welcome === undefined && isRegistrationRefusal(body.code)) {
          this.#fail(new FlowBusError(body.code, body.message, { correlation: header.correlation }));
        }
        if (waiting) {
          this.replies.delete(header.correlation);
          waiting.reject(new FlowBusError(body.code, body.message, { correlation: header.correlation }));
        }
        this.dispatchEvent(new CustomEvent("flowdError", { detail: { header, body } }));
        return;
      default:
        if (waiting) {
          this.replies.delete(header.correlation);
          waiting.resolve({ type, header, body });
          return;
        }
        this.dispatchEvent(new CustomEvent("control", { detail: message }));
    }
  }

  #retryHello() {
    clearTimeout(this.storeRetry);
    const wait = this.backoff;
    this.backoff = Math.min(this.backoff * 2, 5000);
    this.storeRetry = setTimeout(() => {
      // Another instance may reach the database (a lost connection moves on to the next URL); one is asked again.
      if (this.urls.length > 1) this.#reconnect();
      else this.#sayHello();
    }, wait);
  }

  #welcomed(welcome) {
    const previousEpoch = this.epoch;
    this.welcome = welcome;
    this.registered = true;
    this.backoff = 200;
    this.lastProblem = undefined;
    this.heartbeatInterval = welcome.heartbeatInterval ?? this.heartbeatInterval;
    this.heartbeatTimeout = welcome.heartbeatTimeout ?? this.heartbeatTimeout;
    this.epoch = welcome.epoch;
    clearTimeout(this.readyTimer);
    this.dispatchEvent(
      new CustomEvent("welcome", { detail: { welcome, epochChanged: previousEpoch !== undefined && previousEpoch !== welcome.epoch } }),
    );
    this.resolveReady(welcome);
    this.dispatchEvent(new CustomEvent("state", { detail: "registered" }));
  }

  #schedule() {
    clearInterval(this.timer);
    const tick = Math.max(50, Math.min(this.heartbeatInterval, 1000) / 2);
    this.timer = setInterval(() => {
      const now = Date.now();
      if (now - this.lastHeard > this.heartbeatTimeout) {
        this.lastProblem = `nothing heard from flowd for ${this.heartbeatTimeout} ms`;
        this.#reconnect();
        return;
      }
      if (this.registered && now - this.lastSent >= this.heartbeatInterval) this.send("HEARTBEAT", {});
    }, tick);
  }

  #lost(code, reason) {
    this.registered = false;
    clearInterval(this.timer);
    this.#rejectReplies(new FlowBusError("unreachable", "the connection to flowd was lost"));
    if (this.closed) return;
    const fatal = FATAL_CLOSE_CODES.get(code);
    if (fatal) {
      this.#fail(new FlowBusError(fatal, reason || `flowd closed the connection (${code})`, { closeCode: code }));
      return;
    }
    this.lastProblem = `connection closed (${code}${reason ? ": " + reason : ""})`;
    this.dispatchEvent(new CustomEvent("state", { detail: "disconnected" }));
    const wait = this.backoff;
    this.backoff = Math.min(this.backoff * 2, 5000);
    if (this.urls.length > 1) this.urlIndex += 1;
    setTimeout(() => this.#open(), wait);
  }

  #reconnect() {
    const socket = this.socket;
    this.socket = undefined;
    if (socket) {
      socket.onclose = null;
      try {
        socket.close();
      } catch {}
    }
    this.#lost(1006, this.lastProblem);
  }

  #rejectReplies(error) {
    for (const waiting of this.replies.values()) waiting.reject(error);
    this.replies.clear();
  }

  #fail(error) {
    if (this.fatal) return;
    this.fatal = error;
    this.rejectReady(error);
    this.dispatchEvent(new CustomEvent("failed", { detail: error }));
    this.close(false);
  }

  /** Says BYE (unless `bye` is false) and closes; nothing is sent after. */
  close(bye = true) {
    if (this.closed) return;
    if (bye && this.registered) this.send("BYE", { reason: "closed" });
    this.closed = true;
    this.registered = false;
    clearInterval(this.timer);
    clearTimeout(this.readyTimer);
    clearTimeout(this.storeRetry);
    this.#rejectReplies(new FlowBusError("closed", "the client is closed"));
    if (this.socket) {
      try {
        this.socket.close(1000, "closed");
      } catch {}
    }
    this.socket = undefined;
    this.dispatchEvent(new CustomEvent("state", { detail: "closed" }));
  }
}

function isRegistrationRefusal(code) {
  return ["idMismatch", "idNotAllowed", "notAllowed", "missingSession", "nameTaken", "sessionLimit", "malformedBody", "tooLong", "unsupportedVersion"].includes(code);
}

function randomSuffix() {
  return Math.random().toString(36).slice(2, 10);
}

// MARK: Steps and their fates

/**
 * What STEP and DEEPLINK need of a sender: numbering, every step kept until its fate (a promise), sent again in
 * order after each WELCOME and on `sequenceGap`, renumbered when flowd lost steps it had acknowledged.
 */
class StepSender {
  constructor(link, { maxWaiting = 1000 } = {}, holdsAfterWelcome = () => false) {
    this.link = link;
    this.maxWaiting = maxWaiting;
    /** Whether, registered again, steps wait for `release()` (a presenter's, until its screens are reported again). */
    this.holdsAfterWelcome = holdsAfterWelcome;
    this.held = false;
    this.releaseTimer = undefined;
    /** Steps waiting for their fate, by sequence, in order. */
    this.waiting = new Map();
    /** Steps not numbered yet (before the first WELCOME). */
    this.unnumbered = [];
    this.lastSequence = 0;
    this.acknowledged = 0;
    this.numbered = false;
    this.byMessage = new Map();
    link.addEventListener("welcome", (event) => this.#welcomed(event.detail));
    link.addEventListener("control", (event) => this.#control(event.detail));
    link.addEventListener("flowdError", (event) => this.#error(event.detail));
    link.addEventListener("failed", (event) => this.#failAll(event.detail));
    link.addEventListener("state", (event) => {
      if (event.detail === "closed") this.#failAll(new FlowBusError("closed", "the client is closed"));
    });
  }

  /** How many steps wait for their fate. */
  get count() {
    return this.waiting.size + this.unnumbered.length;
  }

  /**
   * Queues a STEP or DEEPLINK whose body (without its sequence) `make` builds; resolves with its fate. A body that
   * cannot be made (a step of the wrong form) rejects at once, and takes no number.
   */
  submit(type, make, session) {
    let body;
    try {
      body = make();
    } catch (error) {
      return Promise.reject(error);
    }
    if (this.link.closed) return Promise.reject(new FlowBusError("closed", "the client is closed"));
    if (this.count >= this.maxWaiting) {
      return Promise.reject(new FlowBusError("queueFull", `${this.maxWaiting} steps wait for their fate already`));
    }
    return new Promise((resolve, reject) => {
      const entry = { type, body, session, resolve, reject, sequence: undefined };
      if (this.numbered) {
        this.#number(entry);
        if (this.link.registered && !this.held) this.#send(entry);
      } else {
        this.unnumbered.push(entry);
      }
    });
  }

  #number(entry) {
    this.lastSequence += 1;
    entry.sequence = this.lastSequence;
    this.waiting.set(entry.sequence, entry);
  }

  #send(entry) {
    const id = this.link.send(entry.type, { ...entry.body, sequence: entry.sequence }, { session: entry.session });
    if (id !== undefined) this.byMessage.set(id, entry.sequence);
  }

  #welcomed({ welcome, epochChanged }) {
    const last = welcome.lastSequence ?? 0;
    const pending = [...this.waiting.values()];
    if (epochChanged || (this.acknowledged > 0 && last < this.acknowledged)) {
      // flowd lost what it had acknowledged (another epoch, or an older copy of its state): number anew.
      if (!epochChanged) {
        this.link.log(`flowd lost the steps acknowledged after ${last} (up to ${this.acknowledged}); they are renumbered`);
        this.link.dispatchEvent(new CustomEvent("lostSteps", { detail: { from: last + 1, to: this.acknowledged } }));
      }
      this.waiting.clear();
      this.lastSequence = last;
      this.acknowledged = last;
      for (const entry of pending) this.#number(entry);
    } else if (!this.numbered || this.lastSequence < last) {
      this.lastSequence = Math.max(this.lastSequence, last);
    }
    this.numbered = true;
    for (const entry of this.unnumbered.splice(0)) this.#number(entry);
    this.byMessage.clear();
    // A presenter registered again: flowd holds its screens hidden until it reports them after its snapshot, and a
    // step sent as one of them before would be dropped notVisible. They wait for that report (a heartbeat timeout
    // at most).
    this.held = this.holdsAfterWelcome();
    clearTimeout(this.releaseTimer);
    if (this.held) {
      this.releaseTimer = setTimeout(() => this.release(), this.link.heartbeatTimeout);
      return;
    }
    for (const entry of this.waiting.values()) this.#send(entry);
  }

  /** Sends, in order, what waited for the screens to be reported again. */
  release() {
    if (!this.held) return;
    this.held = false;
    clearTimeout(this.releaseTimer);
    if (!this.link.registered) return;
    for (const entry of this.waiting.values()) this.#send(entry);
  }

  #control({ type, header, body }) {
    if (type !== "STEP_ACK") return;
    const entry = this.waiting.get(body.sequence);
    if (!entry) return;
    this.waiting.delete(body.sequence);
    this.acknowledged = Math.max(this.acknowledged, body.sequence);
    if (header.correlation !== undefined) this.byMessage.delete(header.correlation);
    entry.resolve(body.fate);
  }

  #error({ header, body }) {
    const sequence = header.correlation === undefined ? undefined : this.byMessage.get(header.correlation);
    if (sequence === undefined) return;
    this.byMessage.delete(header.correlation);
    if (body.code === "sequenceGap") {
      if (!this.held) for (const entry of this.waiting.values()) this.#send(entry);
      return;
    }
    if (body.code === "notRegistered" || body.code === "flood") return;
    const entry = this.waiting.get(sequence);
    if (!entry) return;
    this.waiting.delete(sequence);
    entry.reject(new FlowBusError(body.code, body.message, { correlation: header.correlation }));
  }

  #failAll(error) {
    for (const entry of [...this.waiting.values(), ...this.unnumbered]) entry.reject(error);
    this.waiting.clear();
    this.unnumbered = [];
  }
}

/** Waits for the first WELCOME, or throws why there was none. */
async function registered(link) {
  await link.ready;
}

// MARK: Roles

/** What every role shares: its connection, its id, session and name, and closing. */
class Peer extends EventTarget {
  constructor(options, role) {
    super();
    this.link = new Link(options, role);
  }

  /** The connection's id (`<session>/<name>` unless given). */
  get id() {
    return this.link.id;
  }
  /** The session it works in, if any. */
  get session() {
    return this.link.session;
  }
  /** Its name in the session. */
  get name() {
    return this.link.name;
  }

  /** Says BYE and closes (a presenter's screens become hidden at once). */
  close() {
    this.link.close();
  }
}

/** A stepper: emits steps into its session and gets each one's fate. */
export class Stepper extends Peer {
  constructor(options) {
    super(options, "stepper");
    this.steps = new StepSender(this.link, options);
    forward(this.link, this, ["state", "failed", "lostSteps"]);
  }

  /** Connects and registers; resolves once flowd welcomed it. */
  static async connect(options = {}) {
    const stepper = new Stepper(options);
    await registered(stepper.link);
    return stepper;
  }

  /** How many steps wait for their fate. */
  get waitingSteps() {
    return this.steps.count;
  }

  /** Emits a step (`emit("movieIsPicked", {withId: 1})` or `emit(step(...))`); resolves with its fate. */
  emit(name, parameters) {
    return this.steps.submit("STEP", () => ({ step: normalizedStep(name, parameters) }), this.link.session);
  }

  /** Sends a deep link (steps for every flow, parents first); resolves with its fate. */
  deepLink(path) {
    return this.steps.submit("DEEPLINK", () => ({ path: deepLinkPath(path) }), this.link.session);
  }

  /** Sets (or with `null` removes) a value adapt rules read; resolves once set. */
  async setSessionData(key, value) {
    await this.link.request("SESSION_DATA", { key, value });
  }
}

/**
 * A presenter: draws the screens flowd's commands describe. Listen to `update` events (their `detail`:
 * `{reason: "snapshot" | "navigation", commands, screens, sequence, flow, step}`); once they are drawn, the client
 * reports what the window shows (`reportsVisibility: "auto"`, the default), or you call `reportVisibility()`.
 */
export class Presenter extends Peer {
  constructor(options) {
    super(options, "presenter");
    this.steps = new StepSender(this.link, options, () => this.showedSomething);
    this.autoReport = (options.reportsVisibility ?? "auto") === "auto";
    /** The screens as applied. */
    this.screens = new ScreenTree();
    this.topic = `cmd/${this.link.session}/${this.link.name}`;
    this.synced = false;
    this.sequence = undefined;
    this.epoch = undefined;
    this.buffered = [];
    this.confirmed = false;
    this.snapshotAsked = false;
    this.reportedVisible = new Set();
    this.showedSomething = false;
    forward(this.link, this, ["state", "failed", "lostSteps"]);
    this.link.subscribe(this.topic);
    this.link.addEventListener("published", (event) => this.#published(event.detail));
    this.link.addEventListener("welcome", (event) => {
      if (event.detail.welcome.sessionCreated && this.showedSomething) this.#forget();
      this.synced = false;
      this.snapshotAsked = false;
      this.#askSnapshotWhenReady();
    });
    this.link.addEventListener("state", (event) => {
      if (event.detail === "disconnected") {
        this.confirmed = false;
        this.synced = false;
      }
    });
  }

  /** Connects, registers and waits for the first snapshot to be applied. */
  static async connect(options = {}) {
    const presenter = new Presenter(options);
    await registered(presenter.link);
    await new Promise((resolve, reject) => {
      if (presenter.synced) return resolve();
      presenter.addEventListener("update", () => resolve(), { once: true });
      presenter.link.addEventListener("failed", (event) => reject(event.detail), { once: true });
    });
    return presenter;
  }

  #published({ topic, type, body }) {
    if (topic !== this.topic) return;
    if (type === "HEARTBEAT") {
      this.confirmed = true;
      this.#askSnapshotWhenReady();
      return;
    }
    if (type !== "COMMANDS") return;
    if (!this.synced) {
      this.buffered.push(body);
      return;
    }
    this.#batch(body);
  }

  #askSnapshotWhenReady() {
    if (!this.confirmed || !this.link.registered || this.snapshotAsked) return;
    this.snapshotAsked = true;
    this.link.request("SNAPSHOT_REQUEST", { presenter: this.link.name }).then(
      (reply) => this.#snapshot(reply.body),
      (error) => {
        this.snapshotAsked = false;
        if (error.code !== "closed" && error.code !== "unreachable") this.link.log(`snapshot refused: ${error.message}`);
      },
    );
  }

  #snapshot(body) {
    const screens = new ScreenTree();
    try {
      for (const command of body.commands) screens.apply(command);
    } catch (error) {
      this.link.log(`a snapshot that does not apply: ${error.message}`);
      return;
    }
    this.screens = screens;
    this.sequence = body.sequence;
    this.epoch = body.epoch;
    this.synced = true;
    this.reportedVisible = new Set();
    this.showedSomething = screens.root !== undefined;
    const buffered = this.buffered.splice(0).filter((batch) => batch.sequence > body.sequence);
    this.#notify({ reason: "snapshot", commands: body.commands, sequence: body.sequence });
    for (const batch of buffered) {
      if (!this.synced) break;
      this.#batch(batch);
    }
  }

  #batch(batch) {
    if (batch.epoch !== this.epoch || batch.sequence !== this.sequence + 1) {
      if (batch.sequence <= this.sequence && batch.epoch === this.epoch) return;
      this.resync();
      return;
    }
    const screens = this.screens.copy();
    try {
      for (const command of batch.commands) screens.apply(command);
    } catch (error) {
      this.link.log(`commands that do not fit the screens (${error.message}): resync`);
      this.resync();
      return;
    }
    this.screens = screens;
    this.sequence = batch.sequence;
    this.showedSomething ||= screens.root !== undefined;
    this.#notify({
      reason: "navigation",
      commands: batch.commands,
      sequence: batch.sequence,
      flow: batch.flow,
      step: batch.step,
    });
  }

  #notify(detail) {
    this.dispatchEvent(new CustomEvent("update", { detail: { ...detail, screens: this.screens } }));
    if (this.autoReport) this.reportVisibility();
  }

  #forget() {
    this.screens = new ScreenTree();
    this.sequence = undefined;
    this.epoch = undefined;
    this.reportedVisible = new Set();
  }

  /**
   * Reports what the window shows now (from the screens as applied): newly visible presentables as `visible`,
   * those reported visible before and now covered as `hidden`. A tab reported visible is the one selected.
   */
  reportVisibility() {
    const visible = new Set(this.screens.visible().map((node) => node.id));
    const appeared = [...visible].filter((id) => !this.reportedVisible.has(id)).sort((a, b) => a - b);
    const hidden = [...this.reportedVisible]
      .filter((id) => !visible.has(id) && this.screens.get(id))
      .sort((a, b) => a - b);
    this.reportedVisible = visible;
    if (hidden.length > 0) this.link.send("VISIBILITY", { visibility: "hidden", presentables: hidden });
    if (appeared.length > 0) this.link.send("VISIBILITY", { visibility: "visible", presentables: appeared });
    // The screens are reported again after a snapshot: the steps that waited for it go now, after the report.
    if (this.synced) this.steps.release();
  }

  /**
   * The user dismissed these screens (a back button, a closed modal): reported, and removed from the screens with
   * what they hold; an `update` with reason "user" follows.
   */
  dismissed(presentables) {
    if (!Array.isArray(presentables) || !presentables.every((id) => typeof id === "number")) {
      throw new FlowBusError("invalidOptions", "dismissed takes a list of presentable ids: dismissed([node.id])");
    }
    const unknown = presentables.filter((id) => !this.screens.get(id));
    if (unknown.length > 0) {
      throw new FlowBusError("commandDoesNotFit", `dismissed: ${unknown.join(", ")} not on screen`);
    }
    const known = presentables;
    if (known.length === 0) return;
    this.link.send("VISIBILITY", { visibility: "dismissed", presentables: known });
    const screens = this.screens.copy();
    for (const id of known) {
      if (screens.get(id)) screens.apply({ op: "dismiss", target: id });
    }
    this.screens = screens;
    for (const id of [...this.reportedVisible]) if (!screens.get(id)) this.reportedVisible.delete(id);
    this.#notify({ reason: "user", commands: [], sequence: this.sequence });
  }

  /**
   * The user selected tab `index` of the tab container `tabs`: the screens follow, and reporting what it shows
   * makes flowd select it too; an `update` with reason "user" follows.
   */
  selectTab(tabs, index) {
    const screens = this.screens.copy();
    screens.apply({ op: "selectTab", container: tabs, index });
    this.screens = screens;
    this.#notify({ reason: "user", commands: [], sequence: this.sequence });
  }

  /** Emits a step as one of this presenter's screens (`from`: its presentable id); resolves with its fate. */
  emit(name, parameters, { from } = {}) {
    return this.steps.submit(
      "STEP",
      () => {
        if (typeof from !== "number") {
          throw new FlowBusError("invalidOptions", "a presenter emits as one of its screens: {from: id}");
        }
        return { step: normalizedStep(name, parameters), presentable: from };
      },
      this.link.session,
    );
  }

  /** Asks for a snapshot now (the page lost track of its screens); an update with reason "snapshot" follows. */
  resync() {
    this.synced = false;
    this.snapshotAsked = false;
    this.#askSnapshotWhenReady();
  }
}

/**
 * An inspector: asks flowd's queries, watches sessions (the inspection stream, batched), and may act in a session
 * (emit as a stepper or as one of its screens, deep links, session data) when its grant allows.
 */
export class Inspector extends Peer {
  constructor(options) {
    super(options, "inspector");
    this.steps = new StepSender(this.link, options);
    forward(this.link, this, ["state", "failed"]);
    this.link.addEventListener("published", (event) => {
      const { topic, type, body } = event.detail;
      if (type === "EVENTS") this.dispatchEvent(new CustomEvent("events", { detail: { topic, ...body } }));
      else if (type === "COMMANDS") this.dispatchEvent(new CustomEvent("commands", { detail: { topic, ...body } }));
      else if (type === "HEARTBEAT") this.dispatchEvent(new CustomEvent("subscribed", { detail: { topic } }));
    });
  }

  static async connect(options = {}) {
    const inspector = new Inspector(options);
    await registered(inspector.link);
    return inspector;
  }

  /** Asks a query (`tree`, `sessions`, `drops`, `steps`, `stats`, `flows`...); resolves with its result. */
  async query(what, args) {
    const body = args === undefined ? { what } : { what, arguments: args };
    const reply = await this.link.request("QUERY", body, { session: args?.session ?? this.link.session });
    return reply.body.result;
  }

  /**
   * Watches the inspection stream (`events` events, one per batch: `{session, events: [{kind, at, fields}]}`) of
   * one session, or of every session the grant allows.
   */
  watch(session) {
    this.link.subscribe(session === undefined ? "inb/" : `inb/${session}/`);
  }

  unwatch(session) {
    this.link.unsubscribe(session === undefined ? "inb/" : `inb/${session}/`);
  }

  /** Emits a step into `session`, as its stepper of this inspector's name, or as screen `as`; resolves with its fate. */
  emit(name, parameters, { session, as } = {}) {
    const make = () => {
      const body = { step: normalizedStep(name, parameters) };
      if (as !== undefined) body.presentable = as;
      return body;
    };
    return this.steps.submit("STEP", make, session ?? this.link.session);
  }

  /** Sends a deep link into `session`; resolves with its fate. */
  deepLink(path, { session } = {}) {
    return this.steps.submit("DEEPLINK", () => ({ path: deepLinkPath(path) }), session ?? this.link.session);
  }
}

/**
 * A guard: answers flowd's questions about steps (`requires:` rules of a flow file). `decide(question)` gets
 * `{question, guardName, subject, step, deadline, session}` and returns (or resolves to) whether the step may pass.
 */
export class Guard extends Peer {
  constructor(options) {
    if (typeof options.decide !== "function") {
      throw new FlowBusError("invalidOptions", "a guard decides: {decide: (question) => true}");
    }
    super(options, "guard");
    this.decide = options.decide;
    forward(this.link, this, ["state", "failed"]);
    this.link.addEventListener("control", async (event) => {
      const { type, header, body } = event.detail;
      if (type !== "GUARD_QUESTION") return;
      let allowed = false;
      try {
        allowed = (await this.decide({ ...body, session: header.session })) === true;
      } catch (error) {
        this.link.log(`the guard's decision failed (${error.message}): refused`);
      }
      this.link.send("GUARD_ANSWER", { question: body.question, allowed }, { session: header.session, correlation: header.id });
    });
  }

  static async connect(options = {}) {
    const guard = new Guard(options);
    await registered(guard.link);
    return guard;
  }
}

function forward(from, to, types) {
  for (const type of types) {
    from.addEventListener(type, (event) => to.dispatchEvent(new CustomEvent(type, { detail: event.detail })));
  }
}
