"""imported terminal codes (issue 28.4): the old platform's authentication code of a vehicle's terminal

A terminal that never registered here passes its first authentication only with the code imported with its vehicle
(fics_car_info.terminal_auth_code); before, any code was taken and remembered.

Revision ID: 0030
Revises: 0029
Create Date: 2026-11-28 06:30:00
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0030'
down_revision: str | None = '0029'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("fics_car_info") as batch:
        batch.add_column(sa.Column("terminal_auth_code", sa.String(64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("fics_car_info") as batch:
        batch.drop_column("terminal_auth_code")
