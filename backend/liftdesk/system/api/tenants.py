"""Tenants beyond CRUD: their licence settings and data sources."""

from __future__ import annotations

from pydantic import ConfigDict, Field

from liftdesk.core import crud
from liftdesk.core.envelope import ServiceError
from liftdesk.core.i18n import t
from liftdesk.core.schemas import NOT_BLANK, Schema, Time, documented
from liftdesk.system import models as m
from liftdesk.system import resources as res
from liftdesk.system.api.common import IDS, SYS

# ---------------------------------------------------------------- tenants


class TenantSettingQuery(Schema):
    model_config = ConfigDict(json_schema_extra=documented(required=("ids",)))

    ids: str = Field(default="", description="comma-separated tenant row ids", json_schema_extra=IDS)
    account_number: int = Field(
        default=-1, ge=-1, le=1_000_000, description="accounts the tenant may have (-1: no limit)"
    )
    expire_time: Time | None = Field(default=None, description="end of the tenant's licence (none: never)")


@res.TENANT.action(
    "POST",
    f"{SYS}/tenant/setting",
    permission="edit",
    kind="batch",
    query=TenantSettingQuery,
    answer=bool,
    summary="Set account quota and expiry of tenants",
)
async def tenant_setting(ctx: crud.Ctx, query: TenantSettingQuery) -> bool:
    idents = crud.parse_ids(query.ids)
    rows = (await ctx.session.execute(ctx.scope.select(m.Tenant).where(m.Tenant.id.in_(idents)))).scalars().all()
    if len(rows) != len(set(idents)):
        raise ServiceError(t("not_found"))
    for row in rows:
        row.account_number = query.account_number
        row.expire_time = query.expire_time
        ctx.scope.stamp(row, creating=False)
    return True


class DatasourceQuery(Schema):
    model_config = ConfigDict(json_schema_extra=documented(required=("tenant_id", "datasource_id")))

    tenant_id: str = Field(
        default="", max_length=12, description="the tenant", json_schema_extra={"pattern": NOT_BLANK}
    )
    datasource_id: str = Field(
        default="", max_length=64, description="the data source (of a list, the first)", json_schema_extra=IDS
    )


@res.TENANT.action(
    "POST",
    f"{SYS}/tenant/datasource",
    permission="edit",
    kind="bind",
    query=DatasourceQuery,
    answer=bool,
    summary="Bind a tenant to a data source",
)
async def tenant_datasource(ctx: crud.Ctx, query: DatasourceQuery) -> bool:
    tenant = (
        await ctx.session.execute(ctx.scope.select(m.Tenant).where(m.Tenant.tenant_id == query.tenant_id))
    ).scalar_one_or_none()
    if tenant is None:
        raise ServiceError(t("tenant_not_found"))
    ds_id = crud.parse_ids(query.datasource_id, "datasourceId")[0]
    dc = await crud.Ctx.build(ctx.session, ctx.principal, res.DATASOURCE)
    await crud.get_scoped(dc, ds_id)
    tenant.datasource_id = ds_id
    return True
