"""a user must choose a new password (seeded and provisioned administrators, reset passwords)

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-24 12:30:00
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0007'
down_revision: str | None = '0006'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('blade_user', schema=None) as batch_op:
        batch_op.add_column(sa.Column('password_must_change', sa.Integer(), nullable=False, server_default='0'))
    # An installation that still signs in with a seeded or default password is asked to change it.
    op.execute("UPDATE blade_user SET password_must_change = 1 WHERE account = 'admin'")


def downgrade() -> None:
    with op.batch_alter_table('blade_user', schema=None) as batch_op:
        batch_op.drop_column('password_must_change')
