// The movie app as a web page: a FlowBus presenter drawing the screens flowd's commands describe, and the
// authentication stepper (a login sets the "about" permission). The app stepper runs as its own process.
import { FlowBusError, Presenter, Stepper } from "./flowbus.js";

/** The buttons of each screen: a label and the step its tap emits (as the terminal presenter's menu). */
const buttons = {
  OnboardingIntro: [["continue", "introIsComplete"]],
  OnboardingApiKey: [["save the API key", "apiKeyIsFilledIn"]],
  WishlistTable: [
    ["Up", "movieIsPicked", { withId: 14160 }],
    ["Interstellar", "movieIsPicked", { withId: 157336 }],
    ["settings", "settingsAreRequired"],
  ],
  WatchedCollection: [["Amélie", "movieIsPicked", { withId: 194 }]],
  MovieDetail: [["cast: Ed Asner", "castIsPicked", { withId: 3 }]],
  SettingsList: [
    ["login", "loginIsRequired"],
    ["API key", "apiKeyIsRequired"],
    ["about", "aboutIsRequired"],
    ["done", "settingsAreComplete"],
  ],
};

const windowElement = document.querySelector("#window");
const stateElement = document.querySelector("#state");
const statusElement = document.querySelector("#status");
const dropsElement = document.querySelector("#drops");

function setState(state) {
  stateElement.dataset.state = state;
  stateElement.textContent = state;
}

function say(text) {
  statusElement.textContent = text;
}

function element(tag, attributes = {}, ...children) {
  const made = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (key === "onclick") made.addEventListener("click", value);
    else if (value !== undefined) made.setAttribute(key, value);
  }
  made.append(...children);
  return made;
}

const config = await (await fetch("./config.json")).json();
document.querySelector("#session").textContent = `session ${config.session}`;
let presenter;
let auth;
try {
  presenter = await Presenter.connect({ url: config.websocket, session: config.session, name: "main", log: say });
  auth = await Stepper.connect({ url: config.websocket, session: config.session, name: "auth", log: say });
} catch (error) {
  setState("failed");
  say(error instanceof FlowBusError ? `cannot reach flowd: ${error.detail}` : `${error}`);
  throw error;
}
setState("registered");
presenter.addEventListener("state", (event) => setState(event.detail));
presenter.addEventListener("failed", (event) => {
  setState("failed");
  say(event.detail.detail);
});
presenter.addEventListener("update", (event) => draw(event.detail.screens));
draw(presenter.screens);

/** Emits a screen's step and shows its fate: a drop with its reason, explanation and remedy. */
async function tap(node, [label, name, parameters]) {
  let fate;
  try {
    fate = await presenter.emit(name, parameters ?? {}, { from: node.id });
  } catch (error) {
    say(`${name}: ${error.message}`);
    return;
  }
  if (fate.accepted) {
    say(`${label}: ${name} accepted`);
    return;
  }
  say(`${label}: ${name} dropped (${fate.reason})`);
  const item = element(
    "li",
    { class: "drop", "data-reason": fate.reason, "data-step": name },
    `${name} from ${node.name} dropped: ${fate.reason} — ${fate.explanation ?? ""}`,
    fate.remedy ? ` (${fate.remedy})` : "",
  );
  dropsElement.prepend(item);
}

async function login(logIn) {
  try {
    await auth.setSessionData("permissions", logIn ? ["about"] : null);
    say(logIn ? "logged in: permission about granted" : "logged out");
  } catch (error) {
    say(`login: ${error.message}`);
  }
}

function draw(screens) {
  const visible = new Set(screens.visible().map((node) => node.id));
  const content = screens.root === undefined ? element("p", { class: "empty" }, "(nothing on screen yet)") : drawNode(screens, screens.root, visible);
  windowElement.replaceChildren(element("div", { class: "window" }, content));
}

function drawNode(screens, id, visible) {
  const node = screens.get(id);
  const box = element("section", {
    class: `presentable ${node.style}${visible.has(id) ? " visible" : " covered"}`,
    "data-id": String(id),
    "data-name": node.name,
    "data-placement": node.placement,
  });
  if (node.style === "screen") box.append(...drawScreen(node));
  else if (node.style === "stack") box.append(...drawStack(screens, node, visible));
  else if (node.style === "tabs") box.append(...drawTabs(screens, node, visible));
  else if (node.style === "split") box.append(...drawSplit(screens, node, visible));
  if (node.presented !== undefined) {
    box.append(element("div", { class: "modal-layer" }, drawNode(screens, node.presented, visible)));
  }
  return box;
}

function drawScreen(node) {
  const parameters = Object.entries(node.parameters)
    .map(([key, value]) => `${key}: ${typeof value === "object" ? JSON.stringify(value) : value}`)
    .join(", ");
  const parts = [element("h2", {}, node.name)];
  if (node.name === "Alert") {
    parts.push(element("p", {}, String(node.parameters.message ?? "")));
    parts.push(element("button", { onclick: () => presenter.dismissed([node.id]) }, "OK"));
    return parts;
  }
  if (parameters) parts.push(element("div", { class: "parameters" }, parameters));
  const row = element("div", { class: "buttons" });
  for (const button of buttons[node.name] ?? []) {
    row.append(element("button", { "data-step": button[1], onclick: () => tap(node, button) }, button[0]));
  }
  if (node.name === "SettingsLogin") {
    row.append(element("button", { onclick: () => login(true) }, "log in as demo"));
    row.append(element("button", { onclick: () => login(false) }, "log out"));
  }
  parts.push(row);
  return parts;
}

function drawStack(screens, node, visible) {
  const items = node.items.map((item) => screens.get(item));
  const top = items[items.length - 1];
  const bar = element("div", { class: "bar" });
  if (items.length > 1 && top.style === "screen") {
    bar.append(element("button", { class: "back", onclick: () => presenter.dismissed([top.id]) }, "‹ back"));
  }
  bar.append(element("span", { class: "trail" }, items.map((item) => item.name).join(" › ") || node.name));
  return top ? [bar, drawNode(screens, top.id, visible)] : [bar];
}

function drawTabs(screens, node, visible) {
  const bar = element("div", { class: "tabbar", role: "tablist" });
  node.items.forEach((item, index) => {
    const tab = screens.get(item);
    const title = String(tab.parameters.title ?? tab.name);
    bar.append(
      element(
        "button",
        { role: "tab", "aria-selected": String(index === node.selectedTab), onclick: () => presenter.selectTab(node.id, index) },
        title,
      ),
    );
  });
  const selected = node.items[node.selectedTab];
  return selected === undefined ? [bar] : [bar, drawNode(screens, selected, visible)];
}

function drawSplit(screens, node, visible) {
  const pane = (id, label) =>
    element("div", { class: "pane", "data-pane": label }, id === undefined ? "" : drawNode(screens, id, visible));
  return [pane(node.master, "master"), pane(node.detail, "detail")];
}
