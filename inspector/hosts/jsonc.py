"""JSON and JSONC (comments, trailing commas) read with the offsets of every value, and edited by
splicing: the one tokenizer for host config files (`doctor` reads with it, `install` edits with it).

`parse(text, jsonc=...)` gives a tree of `Node`s, each with the `[start, end)` of its text; an edit
replaces, inserts or removes the text of one value or member and leaves every other byte (comments,
order, indentation, trailing commas, other keys) as it was. Strings, numbers and literals are
decoded by `json.loads` of their own text, so values mean what they mean to JSON.

A malformed document raises `JsoncError` with the line and column (1-based) of the problem.
Pure: text in, text out.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from inspector.errors import JsoncError

__all__ = [
    "JsoncError",
    "Node",
    "find",
    "insert_member",
    "loads_jsonc",
    "parse",
    "remove_member",
    "render",
    "Splice",
    "apply_splices",
    "insert_member_splice",
    "remove_member_splice",
    "replace_value",
    "replace_value_splice",
]

_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_LITERALS = ("true", "false", "null")
_WHITESPACE = re.compile(r"[ \t\r\n\ufeff]*")
_STRING = re.compile(r'"[^"\\\n\r]*(?:\\.[^"\\\n\r]*)*"')
_CONTROL = re.compile(r"[\x00-\x1f]")


@dataclass
class Node:
    """A value: `kind` object, array, string, number or literal; `start`/`end` its text's offsets."""

    kind: str
    start: int
    end: int
    value: Any = None  # for scalars; objects and arrays: see members / items
    members: list[Member] = field(default_factory=list)
    items: list[Node] = field(default_factory=list)

    def get(self, key: str) -> Node | None:
        """The value of the member `key` of an object (the last one, as JSON parsers keep), or None."""
        found = [m.value for m in self.members if m.key == key] if self.kind == "object" else []
        return found[-1] if found else None

    def plain(self) -> Any:
        """The Python value."""
        if self.kind == "object":
            return {m.key: m.value.plain() for m in self.members}
        if self.kind == "array":
            return [item.plain() for item in self.items]
        return self.value


@dataclass
class Member:
    key: str
    key_start: int
    value: Node


class _Parser:
    def __init__(self, text: str, jsonc: bool) -> None:
        self.text, self.jsonc, self.i = text, jsonc, 0

    def fail(self, message: str, at: int | None = None) -> JsoncError:
        return JsoncError(message, self.text, self.i if at is None else at)

    def skip(self) -> None:
        """Whitespace, and in JSONC comments."""
        text, n = self.text, len(self.text)
        while True:
            self.i = _WHITESPACE.match(text, self.i).end()  # type: ignore[union-attr]
            if not (text.startswith("//", self.i) or text.startswith("/*", self.i)):
                return
            if not self.jsonc:
                raise self.fail("a comment (JSON has none)")
            if text[self.i + 1] == "/":
                end = text.find("\n", self.i)
                self.i = n if end < 0 else end
            else:
                end = text.find("*/", self.i + 2)
                if end < 0:
                    raise self.fail("a /* comment that is never closed")
                self.i = end + 2

    def string(self) -> Node:
        start = self.i
        match = _STRING.match(self.text, start)
        if match is None:
            raise self.fail("a string that is never closed", start)
        raw = match.group()
        if "\\" not in raw and _CONTROL.search(raw) is None:
            value = raw[1:-1]  # the common case: the text is the value
        else:
            try:
                value = json.loads(raw)
            except ValueError:
                raise self.fail("a string with a bad escape or control character", start) from None
        self.i = match.end()
        return Node("string", start, self.i, value)

    def value(self, depth: int = 0) -> Node:
        if depth > 500:
            raise self.fail("nested too deeply")
        self.skip()
        if self.i >= len(self.text):
            raise self.fail("the text ends where a value should be")
        c, start = self.text[self.i], self.i
        if c == "{":
            return self.container(start, depth, "object", "}")
        if c == "[":
            return self.container(start, depth, "array", "]")
        if c == '"':
            return self.string()
        match = _NUMBER.match(self.text, self.i)
        if match:
            self.i = match.end()
            return Node("number", start, self.i, json.loads(match.group()))
        for word in _LITERALS:
            if self.text.startswith(word, self.i):
                self.i += len(word)
                return Node("literal", start, self.i, json.loads(word))
        raise self.fail(f"unexpected {c!r} where a value should be")

    def container(self, start: int, depth: int, kind: str, close: str) -> Node:
        node = Node(kind, start, start)
        self.i += 1
        first = True
        while True:
            self.skip()
            if self.i >= len(self.text):
                raise self.fail(f"the text ends inside an {kind} (opened at line "
                                f"{JsoncError('', self.text, start).line})")  # fmt: skip
            if self.text[self.i] == close and (first or self.jsonc):
                self.i += 1
                node.end = self.i
                return node
            if self.text[self.i] == close:
                raise self.fail(f"a comma before {close!r} (JSON has no trailing commas)")
            if kind == "object":
                if self.text[self.i] != '"':
                    raise self.fail(f"expected a key (a string) or {close!r}")
                key = self.string()
                self.skip()
                if self.i >= len(self.text) or self.text[self.i] != ":":
                    raise self.fail("expected ':' after the key")
                self.i += 1
                node.members.append(Member(key.value, key.start, self.value(depth + 1)))
            else:
                node.items.append(self.value(depth + 1))
            self.skip()
            if self.i < len(self.text) and self.text[self.i] == ",":
                self.i += 1
                first = False
                continue
            if self.i < len(self.text) and self.text[self.i] == close:
                self.i += 1
                node.end = self.i
                return node
            raise self.fail(f"expected ',' or {close!r}")


def parse(text: str, *, jsonc: bool = True) -> Node:
    """The document's tree; `JsoncError` (line, column) when it is not JSON (`jsonc`: or JSONC)."""
    parser = _Parser(text, jsonc)
    node = parser.value()
    parser.skip()
    if parser.i < len(text):
        raise parser.fail("more text after the document's end")
    return node


def loads_jsonc(text: str) -> Any:
    """JSON with // and /* */ comments and trailing commas (VS Code's settings.json and mcp.json)."""
    return parse(text, jsonc=True).plain()


def find(root: Node, path: list[str]) -> Node | None:
    """The value at `path` (object keys), or None."""
    node: Node | None = root
    for key in path:
        node = node.get(key) if node is not None else None
    return node


# -- edits: each returns the new text ---------------------------------------------------------------


def _line_indent(text: str, offset: int) -> str:
    """The whitespace that starts the line holding `offset`."""
    start = text.rfind("\n", 0, offset) + 1
    return re.match(r"[ \t]*", text[start:]).group()  # type: ignore[union-attr]


def render(value: Any, text: str, like: Node | None) -> str:
    """`value` as JSON text for the place of `like` (the value it replaces, or a sibling): a list
    that `like` spread over lines is spread the same way, anything else on one line."""
    if (
        like is not None
        and isinstance(value, list)
        and like.kind == "array"
        and "\n" in text[like.start : like.end]
        and like.items
        and value
    ):
        inner = _line_indent(text, like.items[0].start)
        outer = _line_indent(text, like.end - 1)
        newline = "\r\n" if "\r\n" in text[like.start : like.end] else "\n"
        body = f",{newline}".join(inner + json.dumps(v, ensure_ascii=False) for v in value)
        return f"[{newline}{body}{newline}{outer}]"
    return json.dumps(value, ensure_ascii=False)


Splice = tuple[int, int, str]  # the text from start to end becomes this


def apply_splices(text: str, splices: list[Splice]) -> str:
    """`text` with every splice made (all taken from the same reading of `text`, none overlapping):
    made from the last to the first, so each one's offsets still hold when it is made."""
    out = text
    bound = len(text) + 1
    for start, end, new in sorted(splices, key=lambda s: (s[0], s[1]), reverse=True):
        assert end <= bound, "overlapping splices"
        out = out[:start] + new + out[end:]
        bound = start
    return out


def replace_value_splice(text: str, node: Node, value: Any) -> Splice:
    """`node`'s value replaced by `value`."""
    return node.start, node.end, render(value, text, node)


def insert_member_splice(text: str, obj: Node, key: str, value: Any, after: str | None = None) -> Splice:
    """The member `key: value` added to `obj`, after the member `after` (else last), on a line of
    its own (indented as its siblings) when the object's members are on lines of their own."""
    assert obj.kind == "object"
    members = obj.members
    index = next((k for k, m in enumerate(members) if m.key == after), len(members) - 1)
    piece = f"{json.dumps(key, ensure_ascii=False)}: {render(value, text, None)}"
    if not members:
        inside = text[obj.start + 1 : obj.end - 1]
        if "\n" in inside:
            indent = _line_indent(text, obj.start) + "  "
            return obj.start + 1, obj.start + 1, f"\n{indent}{piece}"
        return obj.start + 1, obj.end - 1, piece
    anchor = members[index]
    # On its own line when the anchor's key starts its line.
    own_line = text[text.rfind("\n", 0, anchor.key_start) + 1 : anchor.key_start].strip() == ""
    newline = "\r\n" if "\r\n" in text[obj.start : obj.end] else "\n"
    joint = f",{newline}{_line_indent(text, anchor.key_start)}" if own_line else ", "
    # What followed the anchor (its comma, a trailing comma, the closing brace) follows ours.
    return anchor.value.end, anchor.value.end, joint + piece


def remove_member_splice(text: str, obj: Node, key: str) -> Splice:
    """The member `key` of `obj` taken out (with its comma; the line it had to itself)."""
    members = obj.members
    index = next(k for k, m in enumerate(members) if m.key == key)
    member = members[index]
    if index > 0:
        return members[index - 1].value.end, member.value.end, ""  # from the comma after the previous value
    if len(members) > 1:
        return member.key_start, members[1].key_start, ""
    start, end = obj.start + 1, obj.end - 1
    return start, end, "" if "\n" not in text[start:end] else "\n" + _line_indent(text, obj.end - 1)


def replace_value(text: str, node: Node, value: Any) -> str:
    """`text` with `node`'s value replaced by `value`."""
    return apply_splices(text, [replace_value_splice(text, node, value)])


def insert_member(text: str, obj: Node, key: str, value: Any, after: str | None = None) -> str:
    """`text` with the member `key: value` added to `obj` (`insert_member_splice`)."""
    return apply_splices(text, [insert_member_splice(text, obj, key, value, after)])


def remove_member(text: str, obj: Node, key: str) -> str:
    """`text` without the member `key` of `obj` (`remove_member_splice`)."""
    return apply_splices(text, [remove_member_splice(text, obj, key)])
