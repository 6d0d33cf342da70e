"""administrator roles by a flag (issue 28.6): blade_role.is_admin, never the alias text

The roles whose alias is `admin` (every tenant's administrator role) and the platform's administrator role are
marked; from then on a role administers its tenant by the flag, which role/submit cannot set.

Revision ID: 0032
Revises: 0031
Create Date: 2026-11-28 07:00:00
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0032'
down_revision: str | None = '0031'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("blade_role") as batch:
        batch.add_column(sa.Column("is_admin", sa.Integer(), nullable=False, server_default="0"))
    op.execute(
        sa.text("UPDATE blade_role SET is_admin = 1 WHERE role_alias = 'admin' OR id = 1123598816738675201")
    )


def downgrade() -> None:
    with op.batch_alter_table("blade_role") as batch:
        batch.drop_column("is_admin")
