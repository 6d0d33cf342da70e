"""The router factory: one ``Resource`` declaration becomes its routes at the spec's paths.

Every generated handler does the same three things: build the request ``Ctx`` (scope + caller), call the generic
operation, wrap the answer in the envelope.
"""

from typing import Annotated, Any

from fastapi import APIRouter, Body, FastAPI, Query, Request

from liftdesk.core import crud
from liftdesk.core.deps import CurrentUser, SessionDep
from liftdesk.core.envelope import R, ok, r_list_of, r_of
from liftdesk.core.paging import PageQuery, r_page_of
from liftdesk.core.registry import REGISTRY, Resource
from liftdesk.core.schemas import TreeNode

Current = Annotated[int, Query(description="page number, from 1")]
Size = Annotated[int, Query(description="rows per page")]


def page_query(current: Current = 1, size: Size = 10, ascs: str = "", descs: str = "") -> PageQuery:
    return PageQuery(current=current, size=size, ascs=ascs, descs=descs)


def router_for(res: Resource) -> APIRouter:
    tag = res.tag or res.name
    router = APIRouter(prefix=res.prefix, tags=[tag])
    out = res.schema_out
    node_out = crud.tree_schema(out) if res.is_tree else out
    submit_in = crud.update_schema(res.schema_in)

    async def ctx(request: Request, session: Any, me: Any) -> crud.Ctx:
        return await crud.Ctx.build(session, me, res, dict(request.query_params))

    for path, kind in res.ops.items():
        name = f"{res.name}_{path.replace('-', '_')}"
        if kind == "page":

            async def _page(
                request: Request,
                session: SessionDep,
                me: CurrentUser,
                current: Current = 1,
                size: Size = 10,
                ascs: str = "",
                descs: str = "",
            ) -> R[Any]:
                c = await ctx(request, session, me)
                return ok(await crud.page(c, PageQuery(current, size, ascs, descs)))

            router.add_api_route(
                f"/{path}",
                _page,
                methods=["GET"],
                response_model=r_page_of(out),
                name=name,
                summary=f"{res.name}: paged list with filters",
            )
        elif kind == "list":

            async def _list(request: Request, session: SessionDep, me: CurrentUser) -> R[Any]:
                c = await ctx(request, session, me)
                if res.is_tree and not any(k.startswith(("parentId",)) for k in request.query_params):
                    return ok(await crud.tree_list(c))
                return ok(await crud.all_rows(c))

            router.add_api_route(
                f"/{path}",
                _list,
                methods=["GET"],
                response_model=r_list_of(node_out),
                name=name,
                summary=f"{res.name}: list (a tree for tree resources)",
            )
        elif kind == "select":

            async def _select(request: Request, session: SessionDep, me: CurrentUser) -> R[Any]:
                return ok(await crud.all_rows(await ctx(request, session, me)))

            router.add_api_route(
                f"/{path}",
                _select,
                methods=["GET"],
                response_model=r_list_of(out),
                name=name,
                summary=f"{res.name}: rows for a drop-down",
            )
        elif kind == "tree":

            async def _tree(request: Request, session: SessionDep, me: CurrentUser) -> R[Any]:
                return ok(await crud.tree_nodes(await ctx(request, session, me)))

            router.add_api_route(
                f"/{path}",
                _tree,
                methods=["GET"],
                response_model=R[list[TreeNode]],
                name=name,
                summary=f"{res.name}: tree of nodes {{id, parentId, title, key, value}}",
            )
        elif kind == "lazy_tree":

            async def _lazy(request: Request, session: SessionDep, me: CurrentUser, parentId: str = "0") -> R[Any]:
                c = await ctx(request, session, me)
                pid = int(parentId) if parentId.isdigit() else 0
                return ok(await crud.lazy_nodes(c, pid))

            router.add_api_route(
                f"/{path}",
                _lazy,
                methods=["GET"],
                response_model=R[list[TreeNode]],
                name=name,
                summary=f"{res.name}: one level of the tree under parentId",
            )
        elif kind == "detail":

            async def _detail(request: Request, session: SessionDep, me: CurrentUser, id: str = "") -> R[Any]:
                c = await ctx(request, session, me)
                ident = id or request.query_params.get(res.id_param, "")
                return ok(await crud.detail(c, crud.parse_id(ident, res.id_param)))

            router.add_api_route(
                f"/{path}",
                _detail,
                methods=["GET"],
                response_model=r_of(out),
                name=name,
                summary=f"{res.name}: one row by id",
            )
        elif kind in ("submit", "create", "update"):
            router.add_api_route(
                f"/{path}",
                _submit_route(res, submit_in, kind),
                methods=["POST"],
                response_model=r_of(out),
                name=name,
                summary={
                    "submit": f"{res.name}: create (no id) or update (with id)",
                    "create": f"{res.name}: create",
                    "update": f"{res.name}: update the fields given (id required)",
                }[kind],
            )
        elif kind == "remove":

            async def _remove(request: Request, session: SessionDep, me: CurrentUser, ids: str = "") -> R[bool]:
                c = await ctx(request, session, me)
                given = ids or request.query_params.get("id", "") or request.query_params.get(res.id_param, "")
                done = await crud.remove(c, crud.parse_ids(given))
                await publish_outbox(request, c)
                return ok(done)

            router.add_api_route(
                f"/{path}",
                _remove,
                methods=["POST"],
                response_model=R[bool],
                name=name,
                summary=f"{res.name}: delete by ids=1,2",
            )
        else:  # pragma: no cover - a declaration error, caught at start-up
            raise ValueError(f"{res.name}: unknown operation kind {kind}")
    return router


async def publish_outbox(request: Request, c: crud.Ctx) -> None:
    bus = getattr(request.app.state, "bus", None)
    if bus is not None:
        for topic, message in c.outbox:
            await bus.publish(topic, message)
    c.outbox.clear()


def _submit_route(res: Resource, submit_in: Any, mode: str) -> Any:
    async def _submit(
        request: Request,
        session: SessionDep,
        me: CurrentUser,
        body: Annotated[submit_in, Body()],
    ) -> R[Any]:
        c = await crud.Ctx.build(session, me, res, dict(request.query_params))
        answer = await crud.submit(c, body, mode)
        await publish_outbox(request, c)
        return ok(answer)

    return _submit


def mount_resources(app: FastAPI) -> None:
    REGISTRY.freeze()
    for res in REGISTRY:
        app.include_router(router_for(res))
