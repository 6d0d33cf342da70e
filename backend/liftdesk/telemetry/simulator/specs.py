"""What a simulated terminal is: vehicle types, their physical profiles, device specs and demo fleets.

Vehicle types follow the ``car_type`` dictionary (0 diesel … 8 stacker).  Every electric type runs a 48 V
traction battery (24 lead-acid cells or 16 LiFePO4 cells) so the platform's default battery-voltage
thresholds (44-58 V) apply to the whole simulated fleet.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from enum import Enum, IntEnum, StrEnum

from liftdesk.telemetry.codecs.jt808 import Jt808Version


class VehicleType(IntEnum):
    """``car_type`` dictionary values."""

    DIESEL = 0  #: 柴油内燃叉车
    PETROL = 1  #: 汽油内燃叉车
    NATURAL_GAS = 2  #: 天然气内燃叉车
    LEAD_ACID = 3  #: 铅酸电动叉车
    LITHIUM = 4  #: 锂电电动叉车
    PALLET_TRUCK = 5  #: 电动搬运车
    REACH_TRUCK = 6  #: 前移式叉车 (reach truck / "reach stacker")
    TRACTOR = 7  #: 电动牵引车
    STACKER = 8  #: 堆高车


class Chemistry(StrEnum):
    LEAD_ACID = "lead_acid"
    LITHIUM = "lithium"


class Fuel(StrEnum):
    DIESEL = "diesel"
    PETROL = "petrol"
    NATURAL_GAS = "natural_gas"
    ELECTRIC = "electric"


class ShiftPattern(StrEnum):
    """Working windows of a vehicle (see :mod:`.schedule`)."""

    DAY = "day"  #: 08:00-17:00 with breaks
    TWO = "two"  #: 06:00-22:00, two shifts
    THREE = "three"  #: round the clock, three shifts


class Job(Enum):
    """The kind of work a vehicle does in the yard."""

    TRUCK_LOADING = "truck_loading"  #: outdoor yard ↔ docks (combustion counterbalance)
    DOCK_TO_STOCK = "dock_to_stock"  #: docks ↔ staging ↔ low rack levels (electric counterbalance)
    PUTAWAY = "putaway"  #: staging ↔ high racks (reach trucks, stackers)
    SHUTTLE = "shuttle"  #: docks ↔ staging at floor level (pallet trucks)
    TOWING = "towing"  #: tow trains between docks and staging (tractors)


@dataclass(frozen=True, slots=True)
class VehicleProfile:
    """Physical behaviour of one vehicle type."""

    label: str
    fuel: Fuel
    rated_loads_kg: tuple[int, ...]
    job: Job
    cruise_kmh: tuple[float, float]  #: usual travel speed range, empty
    top_kmh: float  #: mechanical top speed; only types faster than 12 km/h ever speed
    max_lift_mm: tuple[int, int]  #: maximum fork height range (per vehicle)
    seat: bool  #: has a seat (and a seat-belt sensor); walkie types do not
    forks: bool = True
    chemistry: Chemistry | None = None  #: fixed chemistry; None = chosen per vehicle (electric) or none
    capacity_ah: tuple[int, int] = (0, 0)  #: traction battery capacity range
    tank_l: tuple[int, int] = (0, 0)  #: fuel tank range (combustion)
    power_factor: float = 1.0  #: scales traction/hydraulic current or fuel use
    accel_ms2: float = 0.6


PROFILES: dict[VehicleType, VehicleProfile] = {
    VehicleType.DIESEL: VehicleProfile(
        "diesel forklift",
        Fuel.DIESEL,
        (3000, 3500, 5000),
        Job.TRUCK_LOADING,
        (9.0, 11.5),
        19.0,
        (3000, 4500),
        seat=True,
        tank_l=(60, 75),
        power_factor=1.2,
    ),
    VehicleType.PETROL: VehicleProfile(
        "petrol forklift",
        Fuel.PETROL,
        (2000, 2500, 3000),
        Job.TRUCK_LOADING,
        (9.0, 11.0),
        18.0,
        (3000, 4000),
        seat=True,
        tank_l=(50, 60),
        power_factor=1.1,
    ),
    VehicleType.NATURAL_GAS: VehicleProfile(
        "natural-gas forklift",
        Fuel.NATURAL_GAS,
        (2500, 3000, 3500),
        Job.TRUCK_LOADING,
        (8.5, 11.0),
        18.0,
        (3000, 4500),
        seat=True,
        tank_l=(40, 50),
        power_factor=1.1,
    ),
    VehicleType.LEAD_ACID: VehicleProfile(
        "lead-acid electric forklift",
        Fuel.ELECTRIC,
        (1500, 2000, 2500, 3000),
        Job.DOCK_TO_STOCK,
        (7.5, 10.5),
        16.0,
        (3000, 4800),
        seat=True,
        chemistry=Chemistry.LEAD_ACID,
        capacity_ah=(560, 750),
    ),
    VehicleType.LITHIUM: VehicleProfile(
        "lithium electric forklift",
        Fuel.ELECTRIC,
        (1500, 2000, 2500, 3000),
        Job.DOCK_TO_STOCK,
        (7.5, 11.0),
        17.0,
        (3000, 4800),
        seat=True,
        chemistry=Chemistry.LITHIUM,
        capacity_ah=(400, 560),
    ),
    VehicleType.PALLET_TRUCK: VehicleProfile(
        "electric pallet truck",
        Fuel.ELECTRIC,
        (2000, 2500),
        Job.SHUTTLE,
        (4.0, 5.5),
        6.0,
        (120, 205),
        seat=False,
        capacity_ah=(150, 230),
        power_factor=0.45,
    ),
    VehicleType.REACH_TRUCK: VehicleProfile(
        "reach truck",
        Fuel.ELECTRIC,
        (1400, 1600, 2000),
        Job.PUTAWAY,
        (6.5, 9.5),
        12.0,
        (6000, 9500),
        seat=True,
        capacity_ah=(420, 620),
        power_factor=0.9,
    ),
    VehicleType.TRACTOR: VehicleProfile(
        "electric tow tractor",
        Fuel.ELECTRIC,
        (2000, 3000, 5000),
        Job.TOWING,
        (9.0, 12.0),
        16.0,
        (0, 0),
        seat=True,
        forks=False,
        capacity_ah=(420, 620),
        power_factor=1.25,
    ),
    VehicleType.STACKER: VehicleProfile(
        "electric stacker",
        Fuel.ELECTRIC,
        (1000, 1200, 1600),
        Job.PUTAWAY,
        (3.5, 5.0),
        6.0,
        (2500, 4500),
        seat=False,
        capacity_ah=(150, 260),
        power_factor=0.5,
    ),
}


@dataclass(frozen=True, slots=True)
class Site:
    """A warehouse yard: centre (WGS-84) and the GB/T 2260 codes sent in 0x0100."""

    name: str
    lat: float
    lon: float
    province_id: int
    city_id: int
    issuer: str = ""  #: who issues operator certificates there


SHANGHAI_WAIGAOQIAO = Site("Shanghai Waigaoqiao DC", 31.357800, 121.591700, 31, 115, "上海市市场监督管理局")
SUZHOU_SIP = Site("Suzhou Industrial Park DC", 31.323600, 120.723000, 32, 571, "苏州市市场监督管理局")
DEMO_SITES: tuple[Site, ...] = (SHANGHAI_WAIGAOQIAO, SUZHOU_SIP)


@dataclass(frozen=True, slots=True)
class DeviceSpec:
    """One simulated terminal and the vehicle it sits on.

    ``device`` is the terminal number: 12 digits speak JT/T 808-2013, 20 digits speak 2019.
    """

    device: str
    vehicle_type: VehicleType
    rated_load_kg: int
    base_lat: float = SHANGHAI_WAIGAOQIAO.lat
    base_lon: float = SHANGHAI_WAIGAOQIAO.lon
    seed: int = 0
    name: str = ""  #: fleet number people see (``car_no``), e.g. ``FL-001``
    frame_number: str = ""  #: VIN / frame number, sent as the "plate" of 0x0100 (plate colour 0)
    province_id: int = SHANGHAI_WAIGAOQIAO.province_id
    city_id: int = SHANGHAI_WAIGAOQIAO.city_id
    shift_pattern: ShiftPattern = ShiftPattern.TWO
    #: Traction battery chemistry of electric types whose profile does not fix it (default lead-acid).
    chemistry: Chemistry | None = None
    #: Lead-acid drivers who put the truck on charge at every break (bad for the battery; platforms score it).
    opportunity_charger: bool = False
    yard_radius_m: float = 300.0
    certificate_issuer: str = SHANGHAI_WAIGAOQIAO.issuer

    def __post_init__(self) -> None:
        if not (self.device.isascii() and self.device.isdigit() and len(self.device) in (12, 20)):
            raise ValueError(f"device {self.device!r}: expected 12 (JT/T 808-2013) or 20 (2019) digits")
        object.__setattr__(self, "vehicle_type", VehicleType(self.vehicle_type))
        if self.rated_load_kg <= 0:
            raise ValueError(f"rated_load_kg {self.rated_load_kg!r} must be positive")
        if not (-90 <= self.base_lat <= 90 and -180 <= self.base_lon <= 180):
            raise ValueError("base position is not a WGS-84 coordinate")
        if not 50 <= self.yard_radius_m <= 5000:
            raise ValueError("yard_radius_m must be within 50..5000")

    @property
    def version(self) -> Jt808Version:
        return Jt808Version.V2019 if len(self.device) == 20 else Jt808Version.V2013

    @property
    def profile(self) -> VehicleProfile:
        return PROFILES[self.vehicle_type]

    @property
    def electric(self) -> bool:
        return self.profile.fuel is Fuel.ELECTRIC

    @property
    def battery_chemistry(self) -> Chemistry | None:
        if not self.electric:
            return None
        return self.profile.chemistry or self.chemistry or Chemistry.LEAD_ACID

    @property
    def label(self) -> str:
        return self.name or self.device


#: Type mix of demo fleets: every type within the first nine, electric-heavy like real warehouses.
_TYPE_CYCLE: tuple[VehicleType, ...] = (
    VehicleType.LITHIUM,
    VehicleType.LEAD_ACID,
    VehicleType.DIESEL,
    VehicleType.PALLET_TRUCK,
    VehicleType.REACH_TRUCK,
    VehicleType.STACKER,
    VehicleType.TRACTOR,
    VehicleType.PETROL,
    VehicleType.NATURAL_GAS,
    VehicleType.LITHIUM,
    VehicleType.PALLET_TRUCK,
    VehicleType.LEAD_ACID,
    VehicleType.DIESEL,
    VehicleType.LITHIUM,
    VehicleType.REACH_TRUCK,
    VehicleType.PALLET_TRUCK,
)


def device_number(index: int, version: Jt808Version) -> str:
    """Demo terminal number ``index`` (from 1): ``0138xxxxxxxx`` (2013) or ``1440`` + 16 digits (2019)."""
    if index < 1:
        raise ValueError("index counts from 1")
    if version is Jt808Version.V2019:
        return f"1440{index:016d}"
    if index > 99_999_999:
        raise ValueError("index too large for a 12-digit terminal number")
    return f"0138{index:08d}"


def demo_specs(n: int, seed: int = 1, *, sites: tuple[Site, ...] = DEMO_SITES, first: int = 1) -> list[DeviceSpec]:
    """``n`` varied, reproducible device specs.

    Device numbers depend only on the index (``first`` … ``first + n - 1``), so the same vehicles come back
    whatever the seed; every third terminal speaks JT/T 808-2019.  The seed decides rated loads, shift
    patterns, battery chemistry and everything the vehicles later do.  Vehicles are split over ``sites`` in
    contiguous blocks.
    """
    if n < 0:
        raise ValueError("n must be >= 0")
    if not sites:
        raise ValueError("at least one site is needed")
    specs: list[DeviceSpec] = []
    for i in range(n):
        index = first + i
        rng = random.Random(f"liftdesk-demo:{seed}:{index}")
        vehicle_type = _TYPE_CYCLE[(index - 1) % len(_TYPE_CYCLE)]
        profile = PROFILES[vehicle_type]
        version = Jt808Version.V2019 if index % 3 == 0 else Jt808Version.V2013
        site = sites[(i * len(sites)) // n]
        rated = rng.choice(profile.rated_loads_kg)
        pattern = rng.choices(list(ShiftPattern), weights=(3, 5, 2))[0]
        chemistry = None
        if profile.fuel is Fuel.ELECTRIC and profile.chemistry is None:
            chemistry = Chemistry.LITHIUM if rng.random() < 0.55 else Chemistry.LEAD_ACID
        specs.append(
            DeviceSpec(
                device=device_number(index, version),
                vehicle_type=vehicle_type,
                rated_load_kg=rated,
                base_lat=site.lat,
                base_lon=site.lon,
                seed=rng.getrandbits(32),
                name=f"FL-{index:03d}",
                frame_number=f"LDK{int(vehicle_type)}X{rated:05d}{index:07d}",
                province_id=site.province_id,
                city_id=site.city_id,
                shift_pattern=pattern,
                chemistry=chemistry,
                opportunity_charger=rng.random() < 0.3,
                certificate_issuer=site.issuer,
            )
        )
    return specs
