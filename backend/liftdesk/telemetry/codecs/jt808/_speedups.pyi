# The compiled fast path (_speedups.pyx): the same signatures as the pure-Python decoders it stands in for.
from .location import Location
from .packet import Jt808Version, Packet
from .terminal import LocationBatch

def decode_packet(frame: bytes) -> Packet: ...
def decode_location(body: bytes, *, liftdesk: bool = True) -> Location: ...
def parse_location_batch(
    body: bytes, version: Jt808Version = Jt808Version.V2013, *, liftdesk: bool = True
) -> LocationBatch: ...
