// The flow file as flowd's `flows` reply gives it: each flow a box with its root, its handlers (step → actions) and
// its adapt rules. The flows running in the selected session are marked `.running`, and the handler of its last
// navigation `.current` — each also said in text, for a reader (or a test) that does not see the colours.

import { element } from "./text.js";

export class DiagramView {
  constructor(container) {
    this.container = container;
    this.report = undefined;
  }

  show(report) {
    this.report = report;
    this.container.replaceChildren();
    if (!report) {
      this.container.append(element("p", "note", "no flow file yet"));
      return;
    }
    const flows = report.flows ?? [];
    const steps = report.steps ?? [];
    const head = element(
      "div",
      "diagram-head",
      `${report.file}: sessions start with ${report.rootFlow}, stepper ${report.stepper}; ${flows.length} flows, ${steps.length} steps`,
    );
    const boxes = element("div", "diagram-flows");
    for (const flow of flows) {
      const box = element("div", "diagram-flow");
      box.dataset.flow = flow.name;
      box.append(
        element("div", "diagram-flow-name", null, element("span", null, flow.name), element("span", "running-mark", "")),
        element("div", "diagram-flow-root", `root: ${flow.root}`),
      );
      const handlers = element("ul", "handlers");
      for (const handler of flow.handlers ?? []) {
        const item = element(
          "li",
          "handler",
          null,
          element("span", "handler-step", handler.step),
          element("span", "handler-actions", ` → ${(handler.actions ?? []).join("; ")}`),
          element("span", "current-mark", ""),
        );
        item.dataset.step = handler.step;
        handlers.append(item);
      }
      if (!flow.handlers?.length) handlers.append(element("li", "note", "handles no step"));
      box.append(handlers);
      for (const adapt of flow.adapts ?? []) box.append(element("div", "adapt", `adapt: ${adapt}`));
      boxes.append(box);
    }
    const declared = element(
      "details",
      "diagram-declared",
      null,
      element("summary", null, "steps and screens declared"),
      element("div", "diagram-steps", `steps: ${steps.map(declaredStep).join(", ") || "none"}`),
      element("div", "diagram-screens", `screens: ${(report.screens ?? []).join(", ") || "none"}`),
    );
    this.container.append(head, boxes, declared);
  }

  /** Marks the flows running in `tree` and the handler of `last.step` in flow `last.flow` (the last navigation). */
  mark(tree, last) {
    const running = new Set((tree?.flows ?? []).map((flow) => flow.name));
    for (const box of this.container.querySelectorAll(".diagram-flow")) {
      const isRunning = running.has(box.dataset.flow);
      box.classList.toggle("running", isRunning);
      box.querySelector(".running-mark").textContent = isRunning ? " — running" : "";
      for (const handler of box.querySelectorAll(".handler")) {
        const current = !!last && box.dataset.flow === last.flow && handler.dataset.step === last.step;
        handler.classList.toggle("current", current);
        handler.querySelector(".current-mark").textContent = current ? " ◀ last navigation" : "";
      }
    }
  }
}

function declaredStep(step) {
  const parameters = Object.entries(step.parameters ?? {}).map(([name, type]) => `${name}: ${type}`);
  return parameters.length ? `${step.name}(${parameters.join(", ")})` : step.name;
}
