"""The code generation records (``blade_code``) and the saved report definitions (``blade_report_file``)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import JSON, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from liftdesk.core.db import Base, BaseEntity


class Code(BaseEntity, Base):
    """What ``gen-code`` makes a resource from: the table, the entity, where its calls live and its fields (a JSON list
    of ``schemas.CodeField``). Platform-wide, as BladeX's: a tool of the platform administrator."""

    __tablename__ = "blade_code"
    code_name: Mapped[str] = mapped_column(String(64))
    service_name: Mapped[str] = mapped_column(String(64))
    table_name: Mapped[str] = mapped_column(String(64))
    table_prefix: Mapped[str | None] = mapped_column(String(32))
    entity_name: Mapped[str] = mapped_column(String(64))
    package_name: Mapped[str] = mapped_column(String(64))
    fields: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    remark: Mapped[str | None] = mapped_column(String(255))


class ReportFile(BaseEntity, Base):
    """A report definition saved by the report designer (UReport's ``blade_report_file``): its name and content."""

    __tablename__ = "blade_report_file"
    name: Mapped[str] = mapped_column(String(100))
    content: Mapped[str | None] = mapped_column(Text)
