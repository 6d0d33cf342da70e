"""api and error logs: every mutating call (blade_log_api) and every unhandled server error (blade_log_error)

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-25 07:20:00
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0010'
down_revision: str | None = '0009'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _request_columns() -> list[sa.Column[object]]:
    return [
        sa.Column('id', sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column('tenant_id', sa.String(length=12), nullable=False),
        sa.Column('service_id', sa.String(length=32), nullable=True),
        sa.Column('server_host', sa.String(length=255), nullable=True),
        sa.Column('server_ip', sa.String(length=255), nullable=True),
        sa.Column('env', sa.String(length=255), nullable=True),
        sa.Column('method', sa.String(length=10), nullable=True),
        sa.Column('request_uri', sa.String(length=255), nullable=True),
        sa.Column('user_agent', sa.String(length=1000), nullable=True),
        sa.Column('remote_ip', sa.String(length=255), nullable=True),
        sa.Column('method_class', sa.String(length=255), nullable=True),
        sa.Column('method_name', sa.String(length=255), nullable=True),
        sa.Column('params', sa.Text(), nullable=True),
        sa.Column('create_by', sa.String(length=64), nullable=True),
        sa.Column('create_time', sa.DateTime(), nullable=False),
    ]


def upgrade() -> None:
    op.create_table('blade_log_api',
    *_request_columns(),
    sa.Column('type', sa.String(length=2), nullable=True),
    sa.Column('title', sa.String(length=255), nullable=True),
    sa.Column('time', sa.BigInteger(), nullable=True),
    sa.Column('status', sa.Integer(), nullable=True),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_blade_log_api'))
    )
    with op.batch_alter_table('blade_log_api', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_blade_log_api_tenant_id'), ['tenant_id'], unique=False)
        batch_op.create_index('ix_blade_log_api_tenant_time', ['tenant_id', 'create_time'], unique=False)

    op.create_table('blade_log_error',
    *_request_columns(),
    sa.Column('stack_trace', sa.Text(), nullable=True),
    sa.Column('exception_name', sa.String(length=255), nullable=True),
    sa.Column('message', sa.Text(), nullable=True),
    sa.Column('line_number', sa.Integer(), nullable=True),
    sa.Column('file_name', sa.String(length=1000), nullable=True),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_blade_log_error'))
    )
    with op.batch_alter_table('blade_log_error', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_blade_log_error_tenant_id'), ['tenant_id'], unique=False)
        batch_op.create_index('ix_blade_log_error_tenant_time', ['tenant_id', 'create_time'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('blade_log_error', schema=None) as batch_op:
        batch_op.drop_index('ix_blade_log_error_tenant_time')
        batch_op.drop_index(batch_op.f('ix_blade_log_error_tenant_id'))
    op.drop_table('blade_log_error')
    with op.batch_alter_table('blade_log_api', schema=None) as batch_op:
        batch_op.drop_index('ix_blade_log_api_tenant_time')
        batch_op.drop_index(batch_op.f('ix_blade_log_api_tenant_id'))
    op.drop_table('blade_log_api')
