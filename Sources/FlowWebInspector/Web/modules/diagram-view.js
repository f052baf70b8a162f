// The flow file as flowd's `flows` reply gives it: each flow a box with its root, its handlers (step → actions) and
// its adapt rules. The flows running in the selected session are marked `.running`, and the handler of its last
// navigation `.current`.

import { element } from "./text.js";

export class DiagramView {
  constructor(container) {
    this.container = container;
    this.report = undefined;
  }

  show(report) {
    this.report = report;
    this.container.replaceChildren();
    if (!report) return;
    const head = element(
      "div",
      "diagram-head",
      `${report.file}: sessions start with ${report.rootFlow}, stepper ${report.stepper}; ${report.flows.length} flows, ${report.steps.length} steps`,
    );
    const boxes = element("div", "diagram-flows");
    for (const flow of report.flows) {
      const box = element("div", "diagram-flow");
      box.dataset.flow = flow.name;
      box.append(element("div", "diagram-flow-name", flow.name), element("div", "diagram-flow-root", `root: ${flow.root}`));
      const handlers = element("ul", "handlers");
      for (const handler of flow.handlers) {
        const item = element("li", "handler", null, element("span", "handler-step", handler.step), element("span", "handler-actions", ` → ${handler.actions.join("; ")}`));
        item.dataset.step = handler.step;
        handlers.append(item);
      }
      box.append(handlers);
      for (const adapt of flow.adapts ?? []) box.append(element("div", "adapt", `adapt: ${adapt}`));
      boxes.append(box);
    }
    this.container.append(head, boxes);
  }

  /** Marks the flows running in `tree` and the handler `step` of flow `flowName` (the last navigation). */
  mark(tree, last) {
    const running = new Set((tree?.flows ?? []).map((flow) => flow.name));
    for (const box of this.container.querySelectorAll(".diagram-flow")) {
      box.classList.toggle("running", running.has(box.dataset.flow));
      for (const handler of box.querySelectorAll(".handler")) {
        handler.classList.toggle("current", !!last && box.dataset.flow === last.flow && handler.dataset.step === last.step);
      }
    }
  }
}
