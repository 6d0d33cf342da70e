"""The Liftdesk driver messages (docs/protocol.md §4.6, §4.7): the card list 0x8F01 round-trips through frames
(hypothesis), a long list splits into sub-packages that reassemble in any order, a damaged list is refused whole,
and the face comparison / behaviour alarm pass-through types round-trip."""

from __future__ import annotations

import random
import zlib
from datetime import UTC, date, datetime

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from liftdesk.telemetry.codecs.jt808 import (
    MAX_BODY,
    BehaviorAlarm,
    BodyError,
    CardEntry,
    CardList,
    DmsAlarm,
    EncodeError,
    FaceComparison,
    FaceResult,
    FaceTrigger,
    Jt808Version,
    PassThrough,
    SubpackageAssembler,
    decode_packet,
    encode_message,
    parse_body,
    parse_packet,
)
from liftdesk.telemetry.commands import build_card_list, card_list_payload, validate

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
serials = st.integers(0, 10**10 - 1).map(lambda n: f"{n:010d}")
entries = st.builds(
    CardEntry,
    serials,
    st.one_of(st.none(), st.dates(date(2000, 1, 1), date(2099, 12, 31))),
    st.one_of(st.none(), st.integers(0, 10**16 - 1).map(str)),
)
card_lists = st.builds(
    CardList.of,
    st.integers(0, 2**32 - 1),
    st.lists(entries, max_size=120, unique_by=lambda c: c.serial),
)
versions = st.sampled_from([Jt808Version.V2013, Jt808Version.V2019])


@SETTINGS
@given(card_lists, versions, st.integers(0, 0xFFFF))
def test_a_card_list_round_trips_through_its_frames(cards: CardList, version: Jt808Version, serial: int) -> None:
    frames = encode_message(cards, terminal="013800138000", serial=serial, version=version)
    assembler = SubpackageAssembler()
    whole = [p for p in (assembler.add(decode_packet(f)) for f in frames) if p is not None]
    assert len(whole) == 1
    message = parse_packet(whole[0])
    assert message.body == cards
    assert message.body.crc == zlib.crc32(cards.encode()[11:])
    # the command payload (what the log keeps, what MQTT terminals get) builds the same body
    assert build_card_list(card_list_payload(cards.issued, cards.cards)) == cards


def test_a_long_list_splits_into_sub_packages_that_reassemble_in_any_order() -> None:
    rng = random.Random(7)
    cards = CardList.of(
        1_780_000_000,
        [CardEntry(f"{n:010d}", date(2027, 1, 1), "123456") for n in rng.sample(range(10**10), 300)],
    )
    raw = cards.encode()
    assert len(raw) == 11 + 300 * 16 and len(raw) > MAX_BODY
    frames = encode_message(cards, terminal="013800138000", serial=65534, version=Jt808Version.V2019)
    assert len(frames) == -(-len(raw) // MAX_BODY) == 5
    packets = [decode_packet(f) for f in frames]
    assert [p.header.serial for p in packets] == [65534, 65535, 0, 1, 2], "consecutive serials, wrapping"
    assert all(p.header.subpackage is not None and p.header.subpackage.total == 5 for p in packets)
    assembler = SubpackageAssembler()
    rng.shuffle(packets)
    done = [w for w in (assembler.add(p) for p in packets) if w is not None]
    assert len(done) == 1 and parse_packet(done[0]).body == cards


def test_a_damaged_or_foreign_list_is_refused_whole() -> None:
    raw = bytearray(CardList.of(5, [CardEntry("0000000001", None, "1234")]).encode())
    raw[-1] ^= 0x01  # one PIN digit changed in transit
    with pytest.raises(BodyError, match="checksum"):
        parse_body(0x8F01, bytes(raw))
    raw[0] = 2
    with pytest.raises(BodyError, match="format"):
        parse_body(0x8F01, bytes(raw))


@pytest.mark.parametrize(
    ("cards", "field"),
    [
        ([CardEntry("123456789")], "serial"),  # 9 digits
        ([CardEntry("12345678901")], "serial"),
        ([CardEntry("12345678ab")], "serial"),
        ([CardEntry("1234567890", pin="12a4")], "pin"),
        ([CardEntry("1234567890", pin="1" * 17)], "pin"),
        ([CardEntry("1234567890"), CardEntry("1234567890")], "twice"),
    ],
)
def test_what_a_terminal_could_not_hold_is_refused_when_built(cards: list[CardEntry], field: str) -> None:
    with pytest.raises(EncodeError, match=field):
        CardList.of(1, cards).encode()
    with pytest.raises(ValueError, match=field):
        validate(0x8F01, {"issued": 1, "cards": [{"serial": c.serial, "pin": c.pin} for c in cards]})


def test_a_payload_whose_crc_does_not_match_is_refused() -> None:
    payload = card_list_payload(1, [CardEntry("0000000001")])
    payload["crc"] ^= 1
    with pytest.raises(ValueError, match="crc"):
        validate(0x8F01, payload)


when = st.datetimes(datetime(2000, 1, 1), datetime(2099, 12, 30)).map(lambda d: d.replace(microsecond=0, tzinfo=UTC))
photos = st.one_of(st.none(), st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E), min_size=1, max_size=60))


@SETTINGS
@given(
    when,
    st.sampled_from(list(FaceResult)),
    st.one_of(st.none(), st.integers(0, 100)),
    st.one_of(st.none(), serials.filter(lambda s: int(s) != 0)),
    st.sampled_from(list(FaceTrigger)),
    photos,
)
def test_a_face_comparison_round_trips(
    t: datetime, result: FaceResult, similarity: int | None, serial: str | None, trigger: FaceTrigger, photo: str | None
) -> None:
    face = FaceComparison(t, result, similarity, serial, trigger, photo)
    body = parse_body(0x0900, PassThrough.of(face).encode())
    assert isinstance(body, PassThrough) and body.liftdesk == face


@SETTINGS
@given(when, st.sampled_from(list(DmsAlarm)), st.integers(1, 2), photos)
def test_a_behaviour_alarm_round_trips(t: datetime, alarm: DmsAlarm, level: int, photo: str | None) -> None:
    item = BehaviorAlarm(t, alarm, level, photo)
    body = parse_body(0x0900, PassThrough.of(item).encode())
    assert isinstance(body, PassThrough) and body.liftdesk == item
    assert parse_body(0x0900, PassThrough.of(item).encode(), liftdesk=False).liftdesk is None, "another maker's"
