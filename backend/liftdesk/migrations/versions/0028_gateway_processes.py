"""gateway processes (issue 11): the gateway process holding a terminal's session (fics_terminal.gateway)

Revision ID: 0028
Revises: 0027
Create Date: 2026-11-26 19:30:00
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0028'
down_revision: str | None = '0027'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("fics_terminal") as batch:
        batch.add_column(sa.Column("gateway", sa.String(64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("fics_terminal") as batch:
        batch.drop_column("gateway")
