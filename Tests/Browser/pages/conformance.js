// Replays the protocol's conformance vectors (Tests/Conformance, its README says how) over flowd's WebSocket
// endpoint, in the browser, with flowbus.js's own codec: one WebSocket per peer of a vector, its id in the URL; a
// peer's control messages and published messages come on it, told apart as the specification says.
import { decode, encode } from "/js/flowbus.js";

class Peer {
  constructor(url, id) {
    this.control = [];
    this.published = [];
    this.waiters = [];
    this.socket = new WebSocket(`${url}?id=${encodeURIComponent(id)}`, ["flowbus.v1"]);
    this.opened = new Promise((resolve, reject) => {
      this.socket.onopen = resolve;
      this.socket.onerror = () => reject(new Error(`cannot connect as ${id}`));
    });
    this.socket.onmessage = (event) => {
      let message;
      try {
        message = decode(event.data);
      } catch (error) {
        message = { unreadable: String(event.data).slice(0, 80) };
      }
      (message.topic === undefined ? this.control : this.published).push(message);
      for (const wake of this.waiters.splice(0)) wake();
    };
  }

  /** The next message of `queue`, or undefined after `within` ms. */
  async next(queue, within) {
    const deadline = Date.now() + within;
    while (queue.length === 0) {
      const left = deadline - Date.now();
      if (left <= 0) return undefined;
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return queue.shift();
  }

  close() {
    this.socket.close();
  }
}

function substitute(value, captured) {
  if (typeof value === "string") {
    if (value.startsWith("$") && !value.startsWith("${") && value.slice(1) in captured) return captured[value.slice(1)];
    return value.replace(/\$\{([A-Za-z0-9_]+)\}/g, (whole, name) =>
      name in captured && (typeof captured[name] === "string" || typeof captured[name] === "number")
        ? String(captured[name])
        : whole,
    );
  }
  if (Array.isArray(value)) return value.map((item) => substitute(item, captured));
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, substitute(item, captured)]));
  }
  return value;
}

/** `substitute` on JSON text: a whole string `"$NAME"` becomes the captured value, `${NAME}` inside a string its text. */
function substituteText(text, captured) {
  return text
    .replace(/"\$([A-Za-z0-9_]+)"/g, (whole, name) => (name in captured ? JSON.stringify(captured[name]) : whole))
    .replace(/\$\{([A-Za-z0-9_]+)\}/g, (whole, name) => {
      const value = captured[name];
      if (typeof value === "string") return JSON.stringify(value).slice(1, -1);
      return typeof value === "number" ? String(value) : whole;
    });
}

function mismatch(expected, actual, path, captured) {
  if (typeof expected === "string") {
    if (expected === "$absent") return actual === undefined ? undefined : `${path} should be absent, is ${JSON.stringify(actual)}`;
    if (actual === undefined) return `${path} is missing`;
    if (expected === "$any") return undefined;
    if (expected.startsWith("$contains:")) {
      const part = expected.slice("$contains:".length);
      return typeof actual === "string" && actual.includes(part) ? undefined : `${path} should contain "${part}", is ${JSON.stringify(actual)}`;
    }
    if (expected.startsWith("$capture:")) {
      captured[expected.slice("$capture:".length)] = actual;
      return undefined;
    }
  }
  if (actual === undefined) return `${path} is missing`;
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) return `${path} should be ${JSON.stringify(expected)}, is ${JSON.stringify(actual)}`;
    for (let index = 0; index < expected.length; index += 1) {
      const problem = mismatch(expected[index], actual[index], `${path}[${index}]`, captured);
      if (problem) return problem;
    }
    return undefined;
  }
  if (expected !== null && typeof expected === "object") {
    if (actual === null || typeof actual !== "object" || Array.isArray(actual)) return `${path} should be an object, is ${JSON.stringify(actual)}`;
    for (const key of Object.keys(expected).sort()) {
      const problem = mismatch(expected[key], actual[key], `${path}.${key}`, captured);
      if (problem) return problem;
    }
    return undefined;
  }
  return expected === actual ? undefined : `${path} should be ${JSON.stringify(expected)}, is ${JSON.stringify(actual)}`;
}

async function expectMessage(peer, wanted, published, within, captured) {
  const queue = published ? peer.published : peer.control;
  const deadline = Date.now() + within;
  const skipped = [];
  while (Date.now() < deadline) {
    const message = await peer.next(queue, deadline - Date.now());
    if (!message) break;
    if (message.unreadable !== undefined) {
      skipped.push(`unreadable ${message.unreadable}`);
      continue;
    }
    if (message.type !== wanted.type) {
      skipped.push(message.type);
      continue;
    }
    if (wanted.topic !== undefined) {
      const problem = mismatch(wanted.topic, message.topic ?? "", "topic", captured);
      if (problem) return problem;
    }
    if (wanted.header !== undefined) {
      const problem = mismatch(wanted.header, message.header, "header", captured);
      if (problem) return `${wanted.type}: ${problem}; got header ${JSON.stringify(message.header)}, body ${JSON.stringify(message.body)}`;
    }
    if (wanted.body !== undefined) {
      const problem = mismatch(wanted.body, message.body, "body", captured);
      if (problem) return `${wanted.type}: ${problem}; got body ${JSON.stringify(message.body)}`;
    }
    return undefined;
  }
  return `no ${wanted.type} within ${within} ms (got ${skipped.length ? skipped.join(", ") : "nothing"})`;
}

async function runVector(url, vector, number) {
  const peers = new Map();
  const captured = { session: `w${number}-${Math.random().toString(36).slice(2, 8)}` };
  try {
    for (const [index, exchange] of (vector.exchanges ?? []).entries()) {
      const fail = (what) => new Error(`exchange ${index + 1} (${exchange.peer}): ${what}`);
      const within = exchange.within ?? 5000;
      if (exchange.connect !== undefined) {
        const peer = new Peer(url, substitute(exchange.connect, captured));
        await peer.opened;
        peers.set(exchange.peer, peer);
        continue;
      }
      const peer = peers.get(exchange.peer);
      if (!peer) throw fail("the peer is not connected");
      if (exchange.subscribe !== undefined) {
        const topic = substitute(exchange.subscribe, captured);
        peer.socket.send(`SUBSCRIBE\n${topic}`);
        const deadline = Date.now() + within;
        let confirmed = false;
        while (!confirmed && Date.now() < deadline) {
          const message = await peer.next(peer.published, deadline - Date.now());
          if (!message) break;
          confirmed = message.type === "HEARTBEAT" && message.topic === topic;
        }
        if (!confirmed) throw fail(`no HEARTBEAT confirmed the subscription to ${topic}`);
      } else if (exchange.frames !== undefined) {
        peer.socket.send(exchange.frames.map((frame) => substitute(frame, captured)).join("\n"));
      } else if (exchange.send !== undefined && exchange.send.text !== undefined) {
        // The header and body as the file spells them (1.0 stays 1.0), with the captured values put in.
        const [header, body] = exchange.send.text.map((text) => substituteText(text, captured));
        peer.socket.send(`FLOWBUS/1\n${substitute(exchange.send.type, captured)}\n${header}\n${body}`);
      } else if (exchange.send !== undefined) {
        const message = substitute(exchange.send, captured);
        const header = { sentAt: 0, ...(message.header ?? {}) };
        peer.socket.send(encode(message.type, header, message.body ?? {}));
      } else if (exchange.expect !== undefined || exchange.expectPublished !== undefined) {
        const published = exchange.expectPublished !== undefined;
        const wanted = substitute(published ? exchange.expectPublished : exchange.expect, captured);
        const problem = await expectMessage(peer, wanted, published, within, captured);
        if (problem) throw fail(problem);
      } else if (exchange.expectNone !== undefined) {
        const deadline = Date.now() + within;
        while (Date.now() < deadline) {
          const message = await peer.next(peer.control, deadline - Date.now());
          if (!message) break;
          if (message.type === exchange.expectNone) throw fail(`expected no ${exchange.expectNone}, got ${JSON.stringify(message.body)}`);
        }
      } else if (exchange.close !== undefined) {
        peer.close();
        peers.delete(exchange.peer);
      } else {
        throw fail("no action");
      }
    }
  } finally {
    for (const peer of peers.values()) peer.close();
  }
}

/** Runs a vector file's vectors in order; resolves with `{passed, failures: [{name, problem}]}`. */
export async function runFile(url, file) {
  const failures = [];
  let passed = 0;
  for (const [index, vector] of file.vectors.entries()) {
    try {
      await runVector(url, vector, index + 1);
      passed += 1;
    } catch (error) {
      failures.push({ name: vector.name, problem: error.message });
    }
  }
  return { passed, failures };
}
