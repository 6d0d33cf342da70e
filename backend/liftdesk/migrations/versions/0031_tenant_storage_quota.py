"""storage quota (issue 28.5): a tenant's file storage and its users' upload rate, set by the platform administrator

Revision ID: 0031
Revises: 0030
Create Date: 2026-11-28 07:00:00
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0031'
down_revision: str | None = '0030'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("blade_tenant") as batch:
        batch.add_column(sa.Column("storage_quota_mb", sa.Integer(), nullable=False, server_default="2048"))
        batch.add_column(sa.Column("upload_rate", sa.Integer(), nullable=False, server_default="200"))


def downgrade() -> None:
    with op.batch_alter_table("blade_tenant") as batch:
        batch.drop_column("upload_rate")
        batch.drop_column("storage_quota_mb")
