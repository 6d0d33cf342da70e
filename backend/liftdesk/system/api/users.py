"""Users beyond CRUD: unlocking."""

from __future__ import annotations

from liftdesk.core import crud
from liftdesk.core.batch import selected
from liftdesk.system import auth
from liftdesk.system import models as m
from liftdesk.system import resources as res
from liftdesk.system.api.common import USER
from liftdesk.system.api.passwords import UserIdsQuery

# ---------------------------------------------------------------- users (beyond CRUD)


@res.USER.action(
    "POST",
    f"{USER}/unlock",
    permission="edit",
    kind="batch",
    query=UserIdsQuery,
    answer=bool,
    summary="Clear the sign-in failure count of users",
)
async def unlock_users(ctx: crud.Ctx, query: UserIdsQuery) -> bool:
    users: list[m.User] = await selected(ctx, query.user_ids, "userIds")
    for u in users:
        await auth.clear_failures(ctx.session, u.tenant_id, u.account)
    return True
