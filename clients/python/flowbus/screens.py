"""What a presenter shows: the screens flowd's commands placed, and how they nest — the Swift library's
`ScreenTree`, applying the same commands to the same result (the specification's commands table)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

Description = dict[str, Any]


@dataclass
class Screen:
    """A presentable on screen: its description (`id`, `style`, `name`, `parameters`, `flow`), where it is placed
    (`windowRoot`, `stackItem`, `tab`, `master`, `detail`, `modal`) and what it holds."""

    description: Description
    parent: int | None
    placement: str
    items: list[int] = field(default_factory=list)
    selected_tab: int | None = None
    master: int | None = None
    detail: int | None = None
    presented: int | None = None

    @property
    def id(self) -> int:
        return int(self.description["id"])

    @property
    def name(self) -> str:
        return str(self.description.get("name", ""))

    @property
    def style(self) -> str:
        return str(self.description.get("style", "screen"))

    @property
    def parameters(self) -> dict[str, Any]:
        value = self.description.get("parameters") or {}
        return dict(value) if isinstance(value, dict) else {}


class CommandMisfit(ValueError):
    """A command that does not fit the screens (an unknown container, a push onto tabs...): nothing changed."""


class Screens:
    """One presenter's window: its root and every screen under it, by id."""

    def __init__(self) -> None:
        self.root: int | None = None
        self.nodes: dict[int, Screen] = {}

    def __getitem__(self, id: int) -> Screen:
        return self.nodes[id]

    def __contains__(self, id: object) -> bool:
        return id in self.nodes

    def clear(self) -> None:
        self.root = None
        self.nodes.clear()

    def subtree(self, id: int) -> list[int]:
        """The screen and everything it holds or presents, depth first."""
        node = self.nodes.get(id)
        if node is None:
            return []
        result = [id]
        for child in [*node.items, node.master, node.detail, node.presented]:
            if child is not None:
                result += self.subtree(child)
        return result

    def visible(self) -> list[int]:
        """What a user sees: a stack's top item, the selected tab, a split's master and detail; a modal covers
        everything beneath it."""
        return self._visible(self.root) if self.root is not None else []

    def _visible(self, id: int) -> list[int]:
        shown = self._shown(id)
        hosts = [item for item in shown if self.nodes[item].presented is not None]
        if hosts:
            presented = self.nodes[hosts[-1]].presented
            assert presented is not None
            return self._visible(presented)
        return shown

    def _shown(self, id: int) -> list[int]:
        node = self.nodes.get(id)
        if node is None:
            return []
        result = [id]
        if node.style == "stack" and node.items:
            result += self._shown(node.items[-1])
        elif node.style == "tabs" and node.selected_tab is not None and 0 <= node.selected_tab < len(node.items):
            result += self._shown(node.items[node.selected_tab])
        elif node.style == "split":
            for child in (node.master, node.detail):
                if child is not None:
                    result += self._shown(child)
        return result

    def apply(self, command: dict[str, Any]) -> list[int]:
        """Applies one command; returns the screens it removed. Raises CommandMisfit (changing nothing) when it does
        not fit."""
        op = command.get("op")
        placed = [self._id(description) for description in self._placed(command)]
        for id in placed:
            if id in self.nodes:
                raise CommandMisfit(f"{op}: p{id} is already on screen")
        if len(set(placed)) != len(placed):
            raise CommandMisfit(f"{op}: a screen is placed twice ({', '.join(f'p{id}' for id in placed)})")
        removed: list[int] = []
        if op == "setWindowRoot":
            description = command["presentable"]
            if self.root is not None:
                self._remove(self.root, removed)
            self._insert(description, None, "windowRoot")
            self.root = self._id(description)
        elif op == "push":
            stack = self._node(command, "container", "stack")
            self._insert(command["presentable"], stack.id, "stackItem")
            stack.items.append(self._id(command["presentable"]))
        elif op == "pop":
            stack = self._node(command, "container", "stack")
            target = command.get("target")
            if target not in stack.items:
                raise CommandMisfit(f"pop: p{target} is not an item of the stack p{stack.id}")
            for item in reversed(stack.items[stack.items.index(target) + 1 :]):
                self._remove(item, removed)
        elif op == "present":
            host = self._node(command, "container", None)
            if host.presented is not None:
                raise CommandMisfit(f"present: p{host.id} already presents p{host.presented}")
            self._insert(command["presentable"], host.id, "modal")
            host.presented = self._id(command["presentable"])
        elif op == "dismiss":
            node = self._node(command, "target", None)
            if node.placement == "stackItem" and node.parent in self.nodes:
                stack = self.nodes[node.parent]
                for item in reversed(stack.items[stack.items.index(node.id) + 1 :]):
                    self._remove(item, removed)
            self._remove(node.id, removed)
        elif op == "setTabs":
            tabs = self._node(command, "container", "tabs")
            descriptions = list(command.get("tabs") or [])
            selected = command.get("selected", 0)
            if (not descriptions and selected != 0) or (descriptions and not 0 <= selected < len(descriptions)):
                raise CommandMisfit(f"setTabs: tab {selected} does not exist ({len(descriptions)} tabs)")
            for item in reversed(list(tabs.items)):
                self._remove(item, removed)
            for description in descriptions:
                self._insert(description, tabs.id, "tab")
            tabs.items = [self._id(description) for description in descriptions]
            tabs.selected_tab = selected if descriptions else None
        elif op == "selectTab":
            tabs = self._node(command, "container", "tabs")
            index = command.get("index")
            if not isinstance(index, int) or not 0 <= index < len(tabs.items):
                raise CommandMisfit(f"selectTab: tab {index} does not exist ({len(tabs.items)} tabs)")
            tabs.selected_tab = index
        elif op in ("setMaster", "setDetail"):
            split = self._node(command, "container", "split")
            master = op == "setMaster"
            old = split.master if master else split.detail
            if old is not None:
                self._remove(old, removed)
            self._insert(command["presentable"], split.id, "master" if master else "detail")
            if master:
                split.master = self._id(command["presentable"])
            else:
                split.detail = self._id(command["presentable"])
        else:
            raise CommandMisfit(f"unknown command {op!r}")
        return removed

    @staticmethod
    def _id(description: Any) -> int:
        if not isinstance(description, dict) or not isinstance(description.get("id"), int):
            raise CommandMisfit(f"not a presentable description: {description!r}")
        return int(description["id"])

    @staticmethod
    def _placed(command: dict[str, Any]) -> list[Description]:
        if command.get("op") == "setTabs":
            return list(command.get("tabs") or [])
        placed = command.get("presentable")
        return [placed] if isinstance(placed, dict) else []

    def _node(self, command: dict[str, Any], key: str, style: str | None) -> Screen:
        id = command.get(key)
        node = self.nodes.get(id) if isinstance(id, int) else None
        if node is None:
            raise CommandMisfit(f"{command.get('op')}: p{id} is not on screen")
        if style is not None and node.style != style:
            raise CommandMisfit(f"{command.get('op')}: p{id} ({node.name}) is a {node.style}, not a {style}")
        return node

    def _insert(self, description: Description, parent: int | None, placement: str) -> None:
        self.nodes[self._id(description)] = Screen(dict(description), parent, placement)

    def _remove(self, id: int, removed: list[int]) -> None:
        gone = self.subtree(id)
        node = self.nodes.get(id)
        if node is None:
            return
        parent = self.nodes.get(node.parent) if node.parent is not None else None
        if parent is not None:
            if node.placement == "stackItem":
                parent.items = [item for item in parent.items if item != id]
            elif node.placement == "tab" and id in parent.items:
                index = parent.items.index(id)
                parent.items.remove(id)
                if parent.selected_tab is not None:
                    selected = parent.selected_tab
                    parent.selected_tab = (
                        None if not parent.items else selected - 1 if selected > index else min(selected, len(parent.items) - 1)
                    )
            elif node.placement == "master":
                parent.master = None
            elif node.placement == "detail":
                parent.detail = None
            elif node.placement == "modal":
                parent.presented = None
        elif node.placement == "windowRoot":
            self.root = None
        for item in gone:
            self.nodes.pop(item, None)
        removed += gone

    def describe(self) -> str:
        """The screens as indented text: one line per screen, visible ones marked."""
        visible = set(self.visible())
        lines: list[str] = []

        def walk(id: int, depth: int) -> None:
            node = self.nodes[id]
            mark = "*" if id in visible else " "
            lines.append(f"{mark} {'  ' * depth}p{id} {node.name} ({node.style}, {node.placement})")
            for child in [*node.items, node.master, node.detail, node.presented]:
                if child is not None:
                    walk(child, depth + 1)

        if self.root is not None:
            walk(self.root, 0)
        return "\n".join(lines)
