"""Exceptions raised by the JT/T 808 codec.

Everything the decoder raises for bad input is a :class:`Jt808Error`, so a gateway can
``except Jt808Error`` around one frame, log it and keep the connection.  Builders raise
:class:`EncodeError` (also a ``ValueError``) for arguments they cannot encode.
"""

from __future__ import annotations


class Jt808Error(Exception):
    """Base class of every error raised by the codec."""


class FrameError(Jt808Error):
    """The frame itself is unusable: delimiters, length, escaping or header."""


class EscapeError(FrameError):
    """A 0x7D escape byte is not followed by 0x01 or 0x02."""


class ChecksumError(FrameError):
    """The XOR checksum does not match the header and body."""

    def __init__(self, expected: int, actual: int) -> None:
        super().__init__(f"checksum mismatch: computed 0x{expected:02x}, frame carries 0x{actual:02x}")
        self.expected = expected
        self.actual = actual


class HeaderError(FrameError):
    """The header is truncated, inconsistent with the body length or not BCD."""


class BodyError(Jt808Error):
    """The body of a known message cannot be parsed."""

    def __init__(self, msg_id: int, reason: str) -> None:
        super().__init__(f"message 0x{msg_id:04x}: {reason}")
        self.msg_id = msg_id
        self.reason = reason


class SubpackageError(Jt808Error):
    """A sub-package does not fit the group it claims to belong to."""


class EncodeError(Jt808Error, ValueError):
    """A builder was given a value it cannot encode."""


class ParamValueError(EncodeError):
    """A terminal parameter value is of the wrong type or out of range."""

    def __init__(self, param_id: int, name: str, reason: str) -> None:
        super().__init__(f"parameter 0x{param_id:04x} ({name}): {reason}")
        self.param_id = param_id
        self.name = name
        self.reason = reason
