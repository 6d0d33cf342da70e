"""How a simulated terminal answers the platform (:class:`CommandAnswers`): parameters (set and query), terminal
and vehicle control, text, alarm confirmation, areas, location and attribute queries, the driver's card.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime

from liftdesk.telemetry.codecs.jt808 import (
    AlarmConfirmation,
    AreaSetMode,
    CardList,
    DeleteCircleAreas,
    DeletePolygonAreas,
    DeleteRectangleAreas,
    GeneralReply,
    Jt808Version,
    LocationQueryReply,
    Message,
    ParamId,
    ParamItem,
    ParamQueryReply,
    PlatformGeneralReply,
    QueryAllParams,
    QueryParams,
    RegistrationReply,
    ReplyResult,
    SetCircleAreas,
    SetParams,
    SetPolygonArea,
    SetRectangleAreas,
    TerminalAttributes,
    TerminalCommand,
    TerminalControl,
    TextMessage,
    VehicleControl,
    VehicleControlReply,
    VehicleControlType,
)

from .outbox import TerminalOutbox

log = logging.getLogger("liftdesk.simulator")

DeleteAreas = DeleteCircleAreas | DeleteRectangleAreas | DeletePolygonAreas

MSG_QUERY_LOCATION = 0x8201
MSG_DRIVER_REQUEST = 0x8702
MSG_QUERY_ATTRIBUTES = 0x8107
HARDWARE_VERSION = "LD-T808-B"
MAKER_ID = "LFTDK"
SOFTWARE_VERSION = "LD-SIM 1.0"


class CommandAnswers(TerminalOutbox):
    """The platform's commands answered (the base of :class:`SimulatedForklift`)."""

    async def _reply(self, serial: int, msg_id: int, result: ReplyResult) -> None:
        await self._send(GeneralReply(serial, msg_id, result))

    async def _dispatch(self, message: Message, last_serial: int | None = None) -> None:
        """``last_serial``: a message that came in sub-packages is answered at its last package's serial (the
        earlier ones were answered as they arrived)."""
        header, body = message.header, message.body
        if isinstance(body, PlatformGeneralReply):
            self._on_ack(body)
            return
        if isinstance(body, RegistrationReply):
            if self._reg_reply is not None and not self._reg_reply.done():
                self._reg_reply.set_result(body)
            return
        self.stats.commands += 1
        serial = header.serial
        log.debug("%s ← 0x%04x serial %d", self.spec.label, header.msg_id, serial)
        if isinstance(body, SetParams):
            await self._set_params(serial, body)
        elif isinstance(body, QueryAllParams):
            await self._send(ParamQueryReply(serial, self._param_items(None)))
        elif isinstance(body, QueryParams):
            await self._send(ParamQueryReply(serial, self._param_items(body.param_ids)))
        elif isinstance(body, TerminalControl):
            await self._terminal_control(serial, body)
        elif isinstance(body, VehicleControl):
            await self._vehicle_control(serial, body)
        elif isinstance(body, TextMessage):
            self.texts.append(body.text)
            del self.texts[:-50]
            log.info("%s display: %s", self.spec.label, body.text)
            await self._reply(serial, header.msg_id, ReplyResult.SUCCESS)
        elif isinstance(body, AlarmConfirmation):
            log.info("%s: alarms 0x%08x confirmed by the platform", self.spec.label, body.alarm_types)
            await self._reply(serial, header.msg_id, ReplyResult.SUCCESS)
        elif isinstance(body, CardList):
            await self._card_list(serial if last_serial is None else last_serial, body)
        elif isinstance(body, SetCircleAreas | SetRectangleAreas | SetPolygonArea | DeleteAreas):
            self._areas(body)
            await self._reply(serial, header.msg_id, ReplyResult.SUCCESS)
        elif header.msg_id == MSG_QUERY_LOCATION:
            self.model.sync(self.clock.now())
            await self._send(LocationQueryReply(serial, self.model.location(consume=False)))
        elif header.msg_id == MSG_QUERY_ATTRIBUTES:
            await self._send(self._attributes())
        elif header.msg_id == MSG_DRIVER_REQUEST:
            self.model.sync(self.clock.now())
            await self._send(self.model.card_identity())
        else:
            await self._reply(serial, header.msg_id, ReplyResult.UNSUPPORTED)

    async def _card_list(self, serial: int, body: CardList) -> None:
        """Keep the list (unless older than the one held: refused, result 1), answer, then send what the card in
        the slot's new verdict brought (a card read again)."""
        self.model.sync(self.clock.now())
        kept = self.model.take_card_list(body)
        log.info("%s: card list of %d cards (crc %08x) %s", self.spec.label, len(body.cards), body.crc,
                 "kept" if kept else "refused: older than the one held")  # fmt: skip
        await self._reply(serial, CardList.msg_id, ReplyResult.SUCCESS if kept else ReplyResult.FAILURE)
        for event in self.model.take_events():
            await self._send_event(event)

    async def present_card(self, serial: str, at: datetime | None = None) -> bool:
        """The scenario: a driver presents card ``serial`` (the 0x0702 dated ``at``, the report's time, when given)
        and the terminal checks it against its list. Sent at once; True when the terminal accepted it."""
        self.model.sync(self.clock.now())
        accepted = self.model.present(serial, at)
        for event in self.model.take_events():
            await self._send_event(event)
        return accepted

    def _areas(self, body: SetCircleAreas | SetRectangleAreas | SetPolygonArea | DeleteAreas) -> None:
        """Keep the areas as a terminal does (the platform raises the fence alarms from the positions)."""
        if isinstance(body, DeleteCircleAreas | DeleteRectangleAreas | DeletePolygonAreas):
            held = self.areas[body.msg_id - 1]
            if body.area_ids:
                for area_id in body.area_ids:
                    held.pop(area_id, None)
            else:
                held.clear()
            return
        if isinstance(body, SetPolygonArea):
            self.areas[0x8604][body.area.area_id] = body.area
            return
        held = self.areas[body.msg_id]
        if body.mode == AreaSetMode.UPDATE:
            held.clear()
        for area in body.areas:
            held[area.area_id] = area

    def _attributes(self) -> TerminalAttributes:
        """0x0107: what this terminal is (model, ICCID, versions, GPS+BeiDou, LTE)."""
        spec = self.spec
        v2019 = self.version is Jt808Version.V2019
        return TerminalAttributes(
            terminal_type=0,
            maker_id=MAKER_ID,
            model=f"LD808-{spec.vehicle_type.name[:12]}",
            terminal_id=spec.device if v2019 else spec.device[-7:],
            iccid=("8986" + spec.device)[-20:].rjust(20, "0"),
            hardware_version=HARDWARE_VERSION,
            firmware_version=SOFTWARE_VERSION,
            gnss_modules=0b11,  # GPS, BeiDou
            comm_modules=0b100000,  # TD-LTE
        )

    def _param_items(self, ids: Sequence[int] | None) -> tuple[ParamItem, ...]:
        self.params.values[ParamId.ODOMETER] = min(0xFFFFFFFF, round(self.model.mileage_km * 10))
        return self.params.query(ids)

    async def _set_params(self, serial: int, body: SetParams) -> None:
        self.model.sync(self.clock.now())  # changes apply from now, not from the last report
        problems = self.params.apply(body.params)
        if problems:
            log.warning("%s: refused parameters: %s", self.spec.label, "; ".join(problems))
            await self._reply(serial, SetParams.msg_id, ReplyResult.FAILURE)
            return
        values = body.as_dict()
        odometer = values.get(ParamId.ODOMETER)
        if isinstance(odometer, int):
            self.model.mileage_km = odometer / 10
        if ParamId.LOCK_LEVEL in values:
            log.info("%s: lock level %s", self.spec.label, values[ParamId.LOCK_LEVEL])
        await self._reply(serial, SetParams.msg_id, ReplyResult.SUCCESS)

    async def _terminal_control(self, serial: int, body: TerminalControl) -> None:
        command = body.command
        if command not in (TerminalCommand.RESET, TerminalCommand.FACTORY_RESET, TerminalCommand.CLOSE_DATA_LINK):
            await self._reply(serial, TerminalControl.msg_id, ReplyResult.UNSUPPORTED)
            return
        await self._reply(serial, TerminalControl.msg_id, ReplyResult.SUCCESS)
        if command == TerminalCommand.FACTORY_RESET:
            self.model.sync(self.clock.now())
            self.params.reset()
            self.auth_code = None
        log.info("%s: terminal control %s, reconnecting", self.spec.label, TerminalCommand(command).name.lower())
        self._drop.set()

    async def _vehicle_control(self, serial: int, body: VehicleControl) -> None:
        """2013: the door-lock bit locks (level 2) or unlocks; 2019: DOORS likewise, or the Liftdesk lock level."""
        level: int | None = None
        for item in body.controls:
            if len(item.param) != 1:
                level = None
                break
            if item.control_type == VehicleControlType.DOORS:
                level = 2 if item.param[0] & 1 else 0
            elif item.control_type == VehicleControlType.LIFTDESK_LOCK_LEVEL:
                level = item.param[0]
            else:
                await self._reply(serial, VehicleControl.msg_id, ReplyResult.UNSUPPORTED)
                return
        if level is None or not 0 <= level <= 2:
            await self._reply(serial, VehicleControl.msg_id, ReplyResult.FAILURE)
            return
        self.model.sync(self.clock.now())
        self.params.values[ParamId.LOCK_LEVEL] = level
        log.info("%s: vehicle control, lock level %d", self.spec.label, level)
        await self._reply(serial, VehicleControl.msg_id, ReplyResult.SUCCESS)
        # The standard answer to 0x8500 is 0x0500 (serial + position showing the new state).
        await self._send(VehicleControlReply(serial, self.model.location(consume=False)))
