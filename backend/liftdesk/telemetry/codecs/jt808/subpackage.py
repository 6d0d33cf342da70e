"""Reassembly of sub-packaged messages (body properties bit 13).

Sub-packages of one message carry consecutive serial numbers, so the serial of the first
package is ``serial - (index - 1)`` for every part: groups are keyed by
``(terminal, msg id, first serial)`` and parts may arrive in any order.  Groups that stop
receiving parts are evicted after ``timeout`` seconds, and the number of open groups is
bounded so a misbehaving terminal cannot grow memory without limit.

With ``ask_again=True`` a group that times out with parts missing gets one more ``timeout``:
:meth:`SubpackageAssembler.take_requests` hands out what to ask the terminal for (0x8003),
and the group is dropped only if it is still incomplete when that second wait runs out.

Memory is bounded twice: per assembler (groups, parts and bytes of one connection) and, through a shared
:class:`ReassemblyBudget`, across every connection of a gateway: a part that would take the buffered bytes past
the budget is refused (``SubpackageError``), whatever connection sends it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from .errors import SubpackageError
from .packet import Header, Packet

GroupKey = tuple[str, int, int]
"""(terminal, msg id, serial of the first sub-package)."""


@dataclass(slots=True)
class _Group:
    packet: Packet  # any part; its header is the template for the result
    total: int
    updated: float
    parts: dict[int, bytes] = field(default_factory=dict)
    asked: bool = False  # a re-send of the missing parts was requested once already
    size: int = 0  # bytes of the parts held


class ReassemblyBudget:
    """Bytes of sub-package bodies held for reassembly by every assembler that shares it (one per gateway)."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.used = 0
        self.refused = 0  # parts refused because the budget was spent

    def take(self, size: int) -> bool:
        if self.used + size > self.max_bytes:
            self.refused += 1
            return False
        self.used += size
        return True

    def give(self, size: int) -> None:
        self.used = max(0, self.used - size)


class SubpackageAssembler:
    """Collect sub-packages and return the whole message once every part arrived."""

    def __init__(
        self,
        *,
        timeout: float = 60.0,
        max_groups: int = 1024,
        max_parts: int = 4096,
        clock: Callable[[], float] = time.monotonic,
        ask_again: bool = False,
        max_bytes: int = 8 * 1024 * 1024,
        budget: ReassemblyBudget | None = None,
    ) -> None:
        self.timeout = timeout
        self.max_groups = max_groups
        self.max_parts = max_parts
        self.max_bytes = max_bytes
        self.budget = budget if budget is not None else ReassemblyBudget(max_bytes)
        #: Bytes held by this assembler's open groups.
        self.size = 0
        self.ask_again = ask_again
        self._clock = clock
        self._groups: dict[GroupKey, _Group] = {}
        self._next_sweep = 0.0
        self._requests: list[tuple[Header, tuple[int, ...]]] = []
        #: Groups dropped so far because they timed out or the table was full.
        self.evicted = 0

    def __len__(self) -> int:
        return len(self._groups)

    @staticmethod
    def key(packet: Packet) -> GroupKey:
        h = packet.header
        index = h.subpackage.index if h.subpackage is not None else 1
        return (h.terminal, h.msg_id, (h.serial - (index - 1)) & 0xFFFF)

    def add(self, packet: Packet) -> Packet | None:
        """Add one packet.  Returns the reassembled packet when complete, else ``None``.

        A packet that is not sub-packaged is returned unchanged.  The result's header is
        the first part's, with the first serial and no sub-package field.
        """
        sub = packet.header.subpackage
        if sub is None:
            return packet
        if not 1 <= sub.index <= sub.total:
            raise SubpackageError(f"sub-package index {sub.index} outside 1..{sub.total}")
        if sub.total > self.max_parts:
            raise SubpackageError(f"{sub.total} sub-packages exceed the limit of {self.max_parts}")
        now = self._clock()
        if now >= self._next_sweep:
            self.expire(now)
        key = self.key(packet)
        if sub.total == 1:
            return self._finish(key, packet, {1: packet.body})
        group = self._groups.get(key)
        if group is None:
            if len(self._groups) >= self.max_groups:
                self._drop(next(iter(self._groups)))
                self.evicted += 1
            group = self._groups[key] = _Group(packet, sub.total, now)
        elif group.total != sub.total:
            raise SubpackageError(f"{key}: part says {sub.total} sub-packages, the group has {group.total}")
        size = len(packet.body) - len(group.parts.get(sub.index, b""))
        if self.size + size > self.max_bytes or not self.budget.take(size):
            self._drop(key)
            self.evicted += 1
            raise SubpackageError(f"{key}: sub-packages beyond the reassembly memory limit")
        group.parts[sub.index] = packet.body
        group.size += size
        self.size += size
        group.updated = now
        if sub.index == 1:
            group.packet = packet
        if len(group.parts) < group.total:
            return None
        self._drop(key)
        return self._finish(key, group.packet, group.parts)

    def _drop(self, key: GroupKey) -> None:
        group = self._groups.pop(key, None)
        if group is not None:
            self.size -= group.size
            self.budget.give(group.size)

    def clear(self) -> None:
        """Drop every open group (the connection closed), giving their bytes back to the budget."""
        for key in list(self._groups):
            self._drop(key)

    @staticmethod
    def _finish(key: GroupKey, template: Packet, parts: dict[int, bytes]) -> Packet:
        body = b"".join(parts[i] for i in range(1, len(parts) + 1))
        header = replace(template.header, serial=key[2], subpackage=None)
        return Packet(header, body)

    def missing(self, key: GroupKey) -> tuple[int, ...]:
        """Indexes not yet received for an open group (for a 0x8003 re-send request)."""
        group = self._groups.get(key)
        if group is None:
            return ()
        return tuple(i for i in range(1, group.total + 1) if i not in group.parts)

    def pending(self) -> list[GroupKey]:
        return list(self._groups)

    def expire(self, now: float | None = None) -> list[GroupKey]:
        """Drop groups idle for longer than ``timeout``; returns their keys.

        With ``ask_again``, a group timing out for the first time is kept for another ``timeout`` and a
        re-send request for its missing parts is queued for :meth:`take_requests` instead.
        """
        if now is None:
            now = self._clock()
        limit = now - self.timeout
        stale: list[GroupKey] = []
        for k, g in list(self._groups.items()):
            if g.updated >= limit:
                continue
            if self.ask_again and not g.asked:
                g.asked, g.updated = True, now
                missing = tuple(i for i in range(1, g.total + 1) if i not in g.parts)
                self._requests.append((replace(g.packet.header, serial=k[2], subpackage=None), missing))
                continue
            self._drop(k)
            stale.append(k)
        self.evicted += len(stale)
        self._next_sweep = now + max(self.timeout / 4, 0.001)
        return stale

    def take_requests(self) -> list[tuple[Header, tuple[int, ...]]]:
        """Re-send requests due (``ask_again``): the header of each incomplete message (its ``serial`` is the
        first sub-package's) and the indexes still missing. Each group is asked for once."""
        requests, self._requests = self._requests, []
        return requests
