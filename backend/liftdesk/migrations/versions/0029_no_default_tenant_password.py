"""no shared tenant password (issue 28.3): the parameter tenant.default.password is gone

Every new tenant's administrator gets a random password of its own (shown once to the platform administrator who
created the tenant); the shared default let whoever signed in first take a new tenant.

Revision ID: 0029
Revises: 0028
Create Date: 2026-11-28 06:00:00
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0029'
down_revision: str | None = '0028'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.execute(sa.text("DELETE FROM blade_param WHERE param_key = 'tenant.default.password'"))


def downgrade() -> None:
    # The shared password is not put back: nothing reads it any more.
    pass
