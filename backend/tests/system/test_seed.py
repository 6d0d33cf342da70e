"""The seed on a database that has it already: menus a new release brings are added, nothing else changes."""

from __future__ import annotations

from sqlalchemy import delete, func, select, update

from liftdesk.core.db import Database
from liftdesk.system import models as m
from liftdesk.system.seed import ADMINISTRATOR_ROLE, seed

NEW = ("operation", "fence", "fence_add", "fence_edit", "fence_view", "fence_delete")


async def _menus(db: Database) -> dict[str, m.Menu]:
    async with db.sessionmaker() as s:
        rows = (await s.execute(select(m.Menu).where(m.Menu.code.in_(NEW)))).scalars().all()
    return {row.code: row for row in rows}


async def test_menus_of_a_new_release_reach_a_seeded_database(db: Database) -> None:
    before = await _menus(db)
    assert set(before) == set(NEW)
    async with db.sessionmaker() as s:  # a database seeded before the fence screens existed
        await s.execute(delete(m.RoleMenu).where(m.RoleMenu.menu_id.in_([r.id for r in before.values()])))
        await s.execute(delete(m.Menu).where(m.Menu.code.in_(NEW)))
        await s.commit()
        total = (await s.execute(select(func.count()).select_from(m.Menu))).scalar_one()

    async with db.sessionmaker() as s:
        assert await seed(s) is False  # not seeded again ...
    after = await _menus(db)
    assert set(after) == set(NEW)  # ... but the new menus are there, in their place
    assert after["fence"].parent_id == after["operation"].id and after["operation"].parent_id == 0
    assert {after[c].parent_id for c in NEW if c.startswith("fence_")} == {after["fence"].id}
    async with db.sessionmaker() as s:
        assert (await s.execute(select(func.count()).select_from(m.Menu))).scalar_one() == total + len(NEW)
        granted = set(
            (
                await s.execute(
                    select(m.RoleMenu.menu_id).where(
                        m.RoleMenu.role_id == ADMINISTRATOR_ROLE + 1,
                        m.RoleMenu.menu_id.in_([r.id for r in after.values()]),
                    )
                )
            )
            .scalars()
            .all()
        )
    assert granted == {r.id for r in after.values()}, "the tenant administrator sees the new screen and its buttons"

    async with db.sessionmaker() as s:  # a menu an administrator deleted is not brought back
        await s.execute(update(m.Menu).where(m.Menu.code == "fence_view").values(is_deleted=1))
        await s.commit()
    async with db.sessionmaker() as s:
        await seed(s)
        count = (
            await s.execute(select(func.count()).select_from(m.Menu).where(m.Menu.code == "fence_view"))
        ).scalar_one()
        assert count == 1
        await s.execute(update(m.Menu).where(m.Menu.code == "fence_view").values(is_deleted=0))
        await s.commit()


async def test_the_command_log_menu_is_read_only_and_granted_to_the_administrator(db: Database) -> None:
    async with db.sessionmaker() as s:
        rows = (await s.execute(select(m.Menu).where(m.Menu.code.like("command\\_log%", escape="\\")))).scalars().all()
        menus = {row.code: row for row in rows}
        # no add, edit or delete: commands are sent (command_log_send: any command, its own button) and cancelled
        assert set(menus) == {"command_log", "command_log_view", "command_log_cancel", "command_log_send"}
        fleet = (await s.execute(select(m.Menu).where(m.Menu.code == "fleet"))).scalar_one()
        assert (menus["command_log"].parent_id, menus["command_log"].path) == (fleet.id, "/fleet/command")
        assert {menus[c].category for c in ("command_log_view", "command_log_cancel", "command_log_send")} == {2}
        granted = set(
            (
                await s.execute(
                    select(m.Menu.code)
                    .join(m.RoleMenu, m.RoleMenu.menu_id == m.Menu.id)
                    .where(m.RoleMenu.role_id == ADMINISTRATOR_ROLE + 1)
                )
            )
            .scalars()
            .all()
        )
    assert {"command_log", "command_log_view", "command_log_cancel", "command_log_send"} <= granted
