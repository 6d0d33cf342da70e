"""alarm work (issue 29): who acknowledged, handled and closed an alarm, with its note, cause and assignee, and the
log of each step

Revision ID: 0033
Revises: 0032
Create Date: 2026-11-28 09:20:00
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0033'
down_revision: str | None = '0032'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "fics_alarm_work",
        sa.Column("event_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("tenant_id", sa.String(12), nullable=False),
        sa.Column("vehicle_id", sa.BigInteger(), nullable=False),
        sa.Column("begin_time", sa.DateTime(), nullable=False),
        sa.Column("status", sa.Integer(), nullable=False),
        sa.Column("ack_user_id", sa.BigInteger()),
        sa.Column("ack_user_name", sa.String(64)),
        sa.Column("ack_time", sa.DateTime()),
        sa.Column("cause", sa.String(64)),
        sa.Column("note", sa.Text()),
        sa.Column("assignee_id", sa.BigInteger()),
        sa.Column("assignee_name", sa.String(64)),
        sa.Column("handle_user_name", sa.String(64)),
        sa.Column("handle_time", sa.DateTime()),
        sa.Column("close_user_name", sa.String(64)),
        sa.Column("close_time", sa.DateTime()),
        sa.PrimaryKeyConstraint("event_id", name=op.f("pk_fics_alarm_work")),
    )
    op.create_index("ix_fics_alarm_work_tenant_id", "fics_alarm_work", ["tenant_id"])
    op.create_index("ix_fics_alarm_work_vehicle_id", "fics_alarm_work", ["vehicle_id"])
    op.create_table(
        "fics_alarm_log",
        sa.Column("id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("tenant_id", sa.String(12), nullable=False),
        sa.Column("event_id", sa.BigInteger(), nullable=False),
        sa.Column("action", sa.String(16), nullable=False),
        sa.Column("user_id", sa.BigInteger()),
        sa.Column("user_name", sa.String(64)),
        sa.Column("time", sa.DateTime(), nullable=False),
        sa.Column("cause", sa.String(64)),
        sa.Column("note", sa.Text()),
        sa.Column("assignee_name", sa.String(64)),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_fics_alarm_log")),
    )
    op.create_index("ix_fics_alarm_log_tenant_id", "fics_alarm_log", ["tenant_id"])
    op.create_index("ix_fics_alarm_log_event", "fics_alarm_log", ["tenant_id", "event_id"])


def downgrade() -> None:
    op.drop_table("fics_alarm_log")
    op.drop_table("fics_alarm_work")
