// A session's tree drawn as flowd's `tree` reply describes it: the flows nested under the flow that started them,
// each with its root, its stepper and its contributions; and the screens per presenter as boxes — stacks with their
// items in order, tabs with the visible one marked selected, modals drawn over what they cover, splits side by side.
// Against an earlier tree, what changed is marked (.added, .removed, .changed).

import { element } from "./text.js";

/** Names of flows and screens by id, for the timeline's summaries. */
export function namesOf(tree) {
  return {
    flows: new Map((tree?.flows ?? []).map((flow) => [flow.id, flow.name])),
    screens: new Map((tree?.screens ?? []).map((screen) => [screen.id, screen.name])),
  };
}

function mark(node, key, current, earlier, describe) {
  if (!earlier) return node;
  const was = earlier.get(key);
  if (was === undefined) node.classList.add("added");
  else if (describe(was) !== describe(current)) node.classList.add("changed");
  return node;
}

const flowLine = (flow) => `${flow.name} ${flow.root} ${flow.stepper} ${flow.ready}`;
const contributionLine = (c) => `${c.stepper} ${c.visibility}`;
const screenLine = (s) => `${s.name} ${s.visibility} ${s.placement} ${s.parent}`;

/** Draws the flows of `tree` into `container` (emptied first); `earlier`: the tree to compare with. */
export function drawFlows(container, tree, earlier) {
  container.replaceChildren();
  if (!tree) {
    container.append(element("p", "note", "no tree yet"));
    return;
  }
  const flows = tree.flows ?? [];
  const children = new Map();
  for (const flow of flows) {
    const key = flow.parent ?? null;
    if (!children.has(key)) children.set(key, []);
    children.get(key).push(flow);
  }
  const screens = new Map((tree.screens ?? []).map((s) => [s.id, s]));
  const earlierFlows = earlier ? new Map((earlier.flows ?? []).map((f) => [f.id, f])) : undefined;
  const earlierContributions = earlier
    ? new Map((earlier.contributions ?? []).map((c) => [`${c.flow}/${c.presentable}`, c]))
    : undefined;
  const draw = (flow) => {
    const node = element("li", "flow");
    node.dataset.flow = flow.id;
    node.append(
      element("span", "flow-name", `f${flow.id} ${flow.name}`),
      element("span", "flow-meta", ` — root p${flow.root}, ${flow.stepper}${flow.ready ? "" : ", not ready"}`),
    );
    mark(node, flow.id, flow, earlierFlows, flowLine);
    const contributions = (tree.contributions ?? []).filter((c) => c.flow === flow.id);
    if (contributions.length) {
      const list = element("ul", "contributions");
      for (const c of contributions) {
        const name = screens.get(c.presentable)?.name ?? "?";
        const item = element("li", `contribution ${c.visibility}`, `· p${c.presentable} ${name} ← ${c.stepper} [${c.visibility}]`);
        mark(item, `${c.flow}/${c.presentable}`, c, earlierContributions, contributionLine);
        list.append(item);
      }
      node.append(list);
    }
    const nested = children.get(flow.id) ?? [];
    if (nested.length) node.append(element("ul", "flows", null, ...nested.map(draw)));
    return node;
  };
  const title = element("div", "tree-title", `session ${tree.session} ${tree.ready ? "(ready)" : "(not ready)"}`);
  container.append(title, element("ul", "flows", null, ...(children.get(null) ?? []).map(draw)));
  if (earlierFlows) {
    const gone = [...earlierFlows.values()].filter((f) => !flows.some((g) => g.id === f.id));
    for (const flow of gone) {
      const node = element("div", "flow removed", `f${flow.id} ${flow.name} — ended`);
      node.dataset.flow = flow.id;
      container.append(node);
    }
  }
}

/** Draws the screens of `tree` into `container`, per presenter; `earlier`: the tree to compare with. */
export function drawScreens(container, tree, earlier) {
  container.replaceChildren();
  const screens = tree?.screens ?? [];
  if (!screens.length) {
    container.append(element("p", "note", "no screens"));
    return;
  }
  const children = new Map();
  for (const screen of screens) {
    const key = screen.parent ?? null;
    if (!children.has(key)) children.set(key, []);
    children.get(key).push(screen);
  }
  const earlierScreens = earlier ? new Map((earlier.screens ?? []).map((s) => [s.id, s])) : undefined;
  const draw = (screen) => {
    const node = element("div", `screen style-${screen.style} placement-${screen.placement}`);
    node.dataset.visibility = screen.visibility;
    node.dataset.screen = screen.id;
    const parameters = Object.entries(screen.parameters ?? {}).map(([k, v]) => `${k}: ${JSON.stringify(v)}`);
    const label = parameters.length ? `${screen.name}(${parameters.join(", ")})` : screen.name;
    node.append(element("div", "screen-label", `p${screen.id} ${label} · ${screen.style} · ${screen.visibility}`));
    mark(node, screen.id, screen, earlierScreens, screenLine);
    const nested = children.get(screen.id) ?? [];
    const inline = nested.filter((child) => child.placement !== "modal");
    const modals = nested.filter((child) => child.placement === "modal");
    if (inline.length) {
      const body = element("div", `screen-children children-${screen.style}`);
      for (const child of inline) {
        const drawn = draw(child);
        if (screen.style === "tabs" && child.visibility === "visible") drawn.classList.add("selected-tab");
        body.append(drawn);
      }
      node.append(body);
    }
    for (const modal of modals) {
      const over = element("div", "modal-over", null, draw(modal));
      node.append(over);
    }
    return node;
  };
  const presenters = new Map();
  for (const root of children.get(null) ?? []) {
    if (!presenters.has(root.presenter)) presenters.set(root.presenter, []);
    presenters.get(root.presenter).push(root);
  }
  for (const [presenter, roots] of presenters) {
    container.append(element("div", "presenter", null, element("div", "presenter-name", `presenter ${presenter}`), ...roots.map(draw)));
  }
  if (earlierScreens) {
    const gone = [...earlierScreens.values()].filter((s) => !screens.some((t) => t.id === s.id));
    for (const screen of gone) {
      const node = element("div", "screen removed", `p${screen.id} ${screen.name} — gone`);
      node.dataset.visibility = "dismissed";
      container.append(node);
    }
  }
}

/** Draws flows and screens one under the other (the event's trees before and after). */
export function drawTree(container, tree, earlier) {
  const flows = element("div", "tree-flows");
  const screens = element("div", "tree-screens");
  drawFlows(flows, tree, earlier);
  drawScreens(screens, tree, earlier);
  container.replaceChildren(flows, screens);
}
