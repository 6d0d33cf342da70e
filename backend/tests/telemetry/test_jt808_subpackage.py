"""Sub-package splitting and reassembly."""

from __future__ import annotations

import itertools

import pytest

from liftdesk.telemetry.codecs.jt808 import (
    Header,
    Jt808Version,
    Packet,
    Subpackage,
    SubpackageAssembler,
    SubpackageError,
    decode_packet,
    encode_frames,
    subpackage_count,
)

BODY = bytes((i * 7) & 0xFF for i in range(2500))


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _packets(
    serial: int = 100, version: Jt808Version = Jt808Version.V2013, terminal: str = "13800138000"
) -> list[Packet]:
    frames = encode_frames(0x0801, BODY, terminal=terminal, serial=serial, version=version, max_body=1000)
    return [decode_packet(f) for f in frames]


def test_split_sizes_and_serials() -> None:
    packets = _packets()
    assert subpackage_count(len(BODY), 1000) == 3
    assert [len(p.body) for p in packets] == [1000, 1000, 500]
    assert [p.header.serial for p in packets] == [100, 101, 102]
    assert [p.header.subpackage for p in packets] == [Subpackage(3, 1), Subpackage(3, 2), Subpackage(3, 3)]


@pytest.mark.parametrize("order", list(itertools.permutations(range(3))))
@pytest.mark.parametrize("version", list(Jt808Version))
def test_reassembly_in_any_order(order: tuple[int, ...], version: Jt808Version) -> None:
    packets = _packets(version=version)
    assembler = SubpackageAssembler()
    results = [assembler.add(packets[i]) for i in order]
    assert results[:2] == [None, None]
    whole = results[2]
    assert whole is not None
    assert whole.body == BODY
    assert whole.header == Header(0x0801, packets[0].header.terminal, 100, version, packets[0].header.protocol_version)
    assert len(assembler) == 0


def test_serial_wraps_inside_a_group() -> None:
    packets = _packets(serial=65535)
    assert [p.header.serial for p in packets] == [65535, 0, 1]
    assembler = SubpackageAssembler()
    assert {SubpackageAssembler.key(p) for p in packets} == {("013800138000", 0x0801, 65535)}
    assert assembler.add(packets[2]) is None
    assert assembler.add(packets[0]) is None
    whole = assembler.add(packets[1])
    assert whole is not None and whole.body == BODY and whole.header.serial == 65535


def test_interleaved_groups_from_two_terminals() -> None:
    a, b = _packets(terminal="1"), _packets(terminal="2", serial=101)
    assembler = SubpackageAssembler()
    done = [r for pair in zip(a, reversed(b), strict=True) for r in (assembler.add(pair[0]), assembler.add(pair[1]))]
    finished = [p for p in done if p is not None]
    assert [p.header.terminal_key for p in finished] == ["1", "2"]
    assert all(p.body == BODY for p in finished)


def test_duplicate_part_is_harmless() -> None:
    packets = _packets()
    assembler = SubpackageAssembler()
    assert assembler.add(packets[0]) is None
    assert assembler.add(packets[0]) is None
    assert assembler.missing(SubpackageAssembler.key(packets[0])) == (2, 3)
    assert assembler.add(packets[1]) is None
    whole = assembler.add(packets[2])
    assert whole is not None and whole.body == BODY


def test_not_subpackaged_passes_through() -> None:
    packet = Packet(Header(0x0002, "1", 1), b"")
    assert SubpackageAssembler().add(packet) is packet


def test_single_part_group_completes_at_once() -> None:
    packet = Packet(Header(0x0801, "1", 5, subpackage=Subpackage(1, 1)), b"xyz")
    whole = SubpackageAssembler().add(packet)
    assert whole == Packet(Header(0x0801, "1", 5), b"xyz")


def test_timeout_evicts_stale_groups() -> None:
    clock = FakeClock()
    assembler = SubpackageAssembler(timeout=30, clock=clock)
    packets = _packets()
    assembler.add(packets[0])
    clock.now += 31
    assert assembler.expire() == [SubpackageAssembler.key(packets[0])]
    assert assembler.evicted == 1
    # the group started over: the remaining parts alone do not complete it
    assert assembler.add(packets[1]) is None
    assert assembler.add(packets[2]) is None
    assert assembler.missing(SubpackageAssembler.key(packets[0])) == (1,)


def test_a_stale_group_is_asked_for_once_before_it_is_dropped() -> None:
    """With ``ask_again`` the first timeout yields a re-send request (the first part's header, the missing
    indexes) and another ``timeout`` to wait; parts arriving then still complete the message; the second timeout
    drops it."""
    clock = FakeClock()
    assembler = SubpackageAssembler(timeout=30, clock=clock, ask_again=True)
    packets = _packets(serial=100)
    assembler.add(packets[1])  # part 2 of 3 only
    clock.now += 31
    assert assembler.expire() == [] and assembler.evicted == 0
    [(header, missing)] = assembler.take_requests()
    assert (header.msg_id, header.serial, header.subpackage, missing) == (0x0801, 100, None, (1, 3))
    assert assembler.take_requests() == []  # handed out once
    clock.now += 20
    assembler.add(packets[0])
    whole = assembler.add(packets[2])
    assert whole is not None and whole.body == BODY

    assembler.add(_packets(serial=500)[0])
    clock.now += 31
    assembler.expire()
    assert len(assembler.take_requests()) == 1
    clock.now += 31
    assert assembler.expire() == [SubpackageAssembler.key(_packets(serial=500)[0])]
    assert assembler.take_requests() == [] and assembler.evicted == 1 and len(assembler) == 0


def test_add_sweeps_expired_groups() -> None:
    clock = FakeClock()
    assembler = SubpackageAssembler(timeout=10, clock=clock)
    assembler.add(_packets(terminal="1")[0])
    clock.now += 11
    assembler.add(_packets(terminal="2")[0])
    assert [k[0] for k in assembler.pending()] == ["000000000002"]


def test_recent_activity_keeps_a_group() -> None:
    clock = FakeClock()
    assembler = SubpackageAssembler(timeout=10, clock=clock)
    packets = _packets()
    assembler.add(packets[0])
    clock.now += 8
    assembler.add(packets[1])
    clock.now += 8
    assert assembler.expire() == []
    assert assembler.add(packets[2]) is not None


def test_group_limit_evicts_oldest() -> None:
    assembler = SubpackageAssembler(max_groups=2)
    for terminal in ("1", "2", "3"):
        assembler.add(_packets(terminal=terminal)[0])
    assert [k[0][-1] for k in assembler.pending()] == ["2", "3"]
    assert assembler.evicted == 1


@pytest.mark.parametrize(
    "sub",
    [Subpackage(3, 0), Subpackage(3, 4), Subpackage(0, 0), Subpackage(5000, 1)],
)
def test_invalid_subpackage_fields(sub: Subpackage) -> None:
    with pytest.raises(SubpackageError):
        SubpackageAssembler().add(Packet(Header(0x0801, "1", 1, subpackage=sub), b""))


def test_total_mismatch_is_rejected() -> None:
    assembler = SubpackageAssembler()
    assembler.add(Packet(Header(0x0801, "1", 10, subpackage=Subpackage(3, 1)), b"a"))
    with pytest.raises(SubpackageError):
        assembler.add(Packet(Header(0x0801, "1", 11, subpackage=Subpackage(4, 2)), b"b"))
