"""The card list command (Liftdesk vendor message 0x8F01, ``codecs/jt808/drivers.py``): its JSON payload, as stored
in the command log and sent over MQTT, and the body built from it.

Payload: ``{"issued": <epoch seconds>, "crc": <CRC-32 of the entries>, "cards": [{"serial": "0012345678",
"validUntil": "2027-03-31" | null, "pin": "1234" | null}, ...]}``. ``crc`` is informational (the body computes its
own); a payload whose ``crc`` does not match its cards is refused, so what the log shows is what was sent.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any

from liftdesk.telemetry.codecs.jt808 import CardEntry, CardList, EncodeError

CARD_LIST = "card_list"


def card_list_payload(issued: int, cards: Sequence[CardEntry]) -> dict[str, Any]:
    """The command payload of a list (sorted by serial, as the body is)."""
    body = CardList.of(issued, tuple(cards))
    return {
        "issued": body.issued,
        "crc": body.crc,
        "cards": [
            {"serial": c.serial, "validUntil": c.valid_until.isoformat() if c.valid_until else None, "pin": c.pin}
            for c in body.cards
        ],
    }


def entries_of(payload: Mapping[str, Any]) -> list[CardEntry]:
    raw = payload.get("cards")
    if not isinstance(raw, list):
        raise ValueError("cards: a list is required")
    out: list[CardEntry] = []
    for i, item in enumerate(raw):
        if not isinstance(item, Mapping):
            raise ValueError(f"cards[{i}]: an object is required")
        valid = item.get("validUntil")
        try:
            day = date.fromisoformat(valid) if isinstance(valid, str) and valid else None
        except ValueError as exc:
            raise ValueError(f"cards[{i}].validUntil: {valid!r} is not yyyy-MM-dd") from exc
        pin = item.get("pin")
        out.append(CardEntry(str(item.get("serial") or ""), day, str(pin) if pin else None))
    return out


def build_card_list(payload: Mapping[str, Any]) -> CardList:
    issued = payload.get("issued")
    if not isinstance(issued, int) or isinstance(issued, bool):
        raise ValueError("issued: an integer (epoch seconds) is required")
    try:
        body = CardList.of(issued, entries_of(payload))
        body.encode()
    except EncodeError as exc:
        raise ValueError(str(exc)) from exc
    crc = payload.get("crc")
    if crc is not None and crc != body.crc:
        raise ValueError("crc: does not match the cards")
    return body
