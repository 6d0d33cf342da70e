"""Process-wide settings of server processes: the event loop they run on, their open-file limit."""

from __future__ import annotations

import asyncio
import importlib.util
import resource

import pytest

from liftdesk.core.process import loop_factory, raise_open_files, run


def test_the_event_loop_is_uvloop_where_installed_unless_asyncio_is_asked_for() -> None:
    installed = importlib.util.find_spec("uvloop") is not None
    assert loop_factory("asyncio") is None
    for choice in ("auto", "uvloop"):
        factory = loop_factory(choice)
        assert (factory is not None) == installed
    with pytest.raises(ValueError, match="event loop"):
        loop_factory("trio")

    async def which() -> str:
        return type(asyncio.get_running_loop()).__module__

    assert run(which(), "asyncio").startswith("asyncio")
    assert run(which(), "auto").startswith("uvloop" if installed else "asyncio")


def test_the_open_file_limit_is_raised_to_the_hard_limit() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    assert raise_open_files() == (soft if hard == resource.RLIM_INFINITY else hard)
    assert resource.getrlimit(resource.RLIMIT_NOFILE)[0] >= soft
