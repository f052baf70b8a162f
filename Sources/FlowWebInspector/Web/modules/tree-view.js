// A session's tree drawn as flowd's `tree` reply describes it: the flows nested under the flow that started them,
// each with its root, its stepper and its contributions; and the screens per presenter as boxes — stacks with their
// items in order, tabs with the visible one marked selected, modals drawn over what they cover, splits side by side.
// Against an earlier tree, what changed is marked (.added, .changed, and the flows and screens gone listed at the
// end as .removed); against a later tree, what will go is marked .removed in place and what will change .changed.

import { element } from "./text.js";

/** Names of flows and screens by id, for the timeline's summaries. */
export function namesOf(tree) {
  return {
    flows: new Map((tree?.flows ?? []).map((flow) => [flow.id, flow.name])),
    screens: new Map((tree?.screens ?? []).map((screen) => [screen.id, screen.name])),
  };
}

/** Marks `node` against the same item in the earlier tree (`compare.earlier`) or the later one (`compare.later`). */
function mark(node, key, current, compare, describe) {
  if (compare.earlier) {
    const was = compare.earlier.get(key);
    if (was === undefined) node.classList.add("added");
    else if (describe(was) !== describe(current)) node.classList.add("changed");
  }
  if (compare.later) {
    const will = compare.later.get(key);
    if (will === undefined) node.classList.add("removed");
    else if (describe(will) !== describe(current)) node.classList.add("changed");
  }
  return node;
}

/** Items by key, for the trees compared with (undefined when there is none). */
function byKey(items, key) {
  return items ? new Map(items.map((item) => [key(item), item])) : undefined;
}

/** Items grouped by their parent's id; an item whose parent is not in the tree counts as a root, so it still shows. */
function byParent(items) {
  const ids = new Set(items.map((item) => item.id));
  const children = new Map();
  for (const item of items) {
    const key = item.parent !== null && item.parent !== undefined && ids.has(item.parent) ? item.parent : null;
    if (!children.has(key)) children.set(key, []);
    children.get(key).push(item);
  }
  return children;
}

const contributionKey = (c) => `${c.flow}/${c.presentable}`;

const flowLine = (flow) => `${flow.name} ${flow.root} ${flow.stepper} ${flow.ready}`;
const contributionLine = (c) => `${c.stepper} ${c.visibility}`;
const screenLine = (s) => `${s.name} ${s.visibility} ${s.placement} ${s.parent}`;

/** Draws the flows of `tree` into `container` (emptied first), marked against `earlier` or `later` trees. */
export function drawFlows(container, tree, { earlier, later } = {}) {
  container.replaceChildren();
  if (!tree) {
    container.append(element("p", "note", "no tree yet"));
    return;
  }
  const flows = tree.flows ?? [];
  const children = byParent(flows);
  const screens = new Map((tree.screens ?? []).map((s) => [s.id, s]));
  const flowsCompared = { earlier: byKey(earlier?.flows, (f) => f.id), later: byKey(later?.flows, (f) => f.id) };
  const contributionsCompared = {
    earlier: byKey(earlier?.contributions, contributionKey),
    later: byKey(later?.contributions, contributionKey),
  };
  const earlierFlows = flowsCompared.earlier;
  const draw = (flow) => {
    const node = element("li", "flow");
    node.dataset.flow = flow.id;
    node.append(
      element("span", "flow-name", `f${flow.id} ${flow.name}`),
      element("span", "flow-meta", ` — root p${flow.root}, ${flow.stepper}${flow.ready ? "" : ", not ready"}`),
    );
    mark(node, flow.id, flow, flowsCompared, flowLine);
    const contributions = (tree.contributions ?? []).filter((c) => c.flow === flow.id);
    if (contributions.length) {
      const list = element("ul", "contributions");
      for (const c of contributions) {
        const name = screens.get(c.presentable)?.name ?? "?";
        const item = element("li", `contribution ${c.visibility}`, `· p${c.presentable} ${name} ← ${c.stepper} [${c.visibility}]`);
        mark(item, contributionKey(c), c, contributionsCompared, contributionLine);
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
    const running = new Set(flows.map((f) => f.id));
    for (const flow of [...earlierFlows.values()].filter((f) => !running.has(f.id))) {
      const node = element("div", "flow removed", `f${flow.id} ${flow.name} — ended`);
      node.dataset.flow = flow.id;
      container.append(node);
    }
  }
}

/** Draws the screens of `tree` into `container`, per presenter, marked against `earlier` or `later` trees. */
export function drawScreens(container, tree, { earlier, later } = {}) {
  container.replaceChildren();
  const screens = tree?.screens ?? [];
  if (!screens.length) container.append(element("p", "note", "no screens"));
  const children = byParent(screens);
  const compared = { earlier: byKey(earlier?.screens, (s) => s.id), later: byKey(later?.screens, (s) => s.id) };
  const earlierScreens = compared.earlier;
  // What the page says of a screen is text (the tab selected, what a modal covers), not only a look.
  const draw = (screen, { selectedTab = false, over } = {}) => {
    const node = element("div", `screen style-${screen.style} placement-${screen.placement}`);
    node.dataset.visibility = screen.visibility;
    node.dataset.screen = screen.id;
    const parameters = Object.entries(screen.parameters ?? {}).map(([k, v]) => `${k}: ${JSON.stringify(v)}`);
    const label = parameters.length ? `${screen.name}(${parameters.join(", ")})` : screen.name;
    const place = screen.placement === "windowRoot" ? "" : ` · ${screen.placement}`;
    const text = `p${screen.id} ${label} · ${screen.style}${place} · ${screen.visibility}`;
    if (over) node.append(element("div", "screen-over", `modal over p${over.id} ${over.name}`));
    node.append(element("div", "screen-label", selectedTab ? `${text} · selected tab` : text));
    if (selectedTab) node.classList.add("selected-tab");
    mark(node, screen.id, screen, compared, screenLine);
    const nested = children.get(screen.id) ?? [];
    const inline = nested.filter((child) => child.placement !== "modal");
    const modals = nested.filter((child) => child.placement === "modal");
    if (inline.length) {
      const body = element("div", `screen-children children-${screen.style}`);
      for (const child of inline) {
        body.append(draw(child, { selectedTab: screen.style === "tabs" && child.visibility === "visible" }));
      }
      node.append(body);
    }
    for (const modal of modals) node.append(element("div", "modal-over", null, draw(modal, { over: screen })));
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
    // Listed apart, without a visibility: they are no longer on any presenter.
    const present = new Set(screens.map((s) => s.id));
    for (const screen of [...earlierScreens.values()].filter((s) => !present.has(s.id))) {
      const node = element("div", "screen removed", `p${screen.id} ${screen.name} — gone`);
      node.dataset.screen = screen.id;
      container.append(node);
    }
  }
}

/** Draws flows and screens one under the other (an event's trees before and after), compared as `drawFlows` does. */
export function drawTree(container, tree, compare = {}) {
  const flows = element("div", "tree-flows");
  const screens = element("div", "tree-screens");
  drawFlows(flows, tree, compare);
  drawScreens(screens, tree, compare);
  container.replaceChildren(flows, screens);
}
