"""code generation records and the report designer's saved definitions (issue 12 part 8)

Revision ID: 0022
Revises: 0021
Create Date: 2026-11-26 19:30:00
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0022'
down_revision: str | None = '0021'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('blade_code',
    sa.Column('code_name', sa.String(length=64), nullable=False),
    sa.Column('service_name', sa.String(length=64), nullable=False),
    sa.Column('table_name', sa.String(length=64), nullable=False),
    sa.Column('table_prefix', sa.String(length=32), nullable=True),
    sa.Column('entity_name', sa.String(length=64), nullable=False),
    sa.Column('package_name', sa.String(length=64), nullable=False),
    sa.Column('fields', sa.JSON(), nullable=False),
    sa.Column('remark', sa.String(length=255), nullable=True),
    sa.Column('id', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('create_user', sa.BigInteger(), nullable=True),
    sa.Column('create_dept', sa.BigInteger(), nullable=True),
    sa.Column('create_time', sa.DateTime(), nullable=False),
    sa.Column('update_user', sa.BigInteger(), nullable=True),
    sa.Column('update_time', sa.DateTime(), nullable=False),
    sa.Column('status', sa.Integer(), nullable=False),
    sa.Column('is_deleted', sa.Integer(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_blade_code'))
    )
    with op.batch_alter_table('blade_code', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_blade_code_create_dept'), ['create_dept'], unique=False)
        batch_op.create_index(batch_op.f('ix_blade_code_is_deleted'), ['is_deleted'], unique=False)

    op.create_table('blade_report_file',
    sa.Column('name', sa.String(length=100), nullable=False),
    sa.Column('content', sa.Text(), nullable=True),
    sa.Column('id', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('create_user', sa.BigInteger(), nullable=True),
    sa.Column('create_dept', sa.BigInteger(), nullable=True),
    sa.Column('create_time', sa.DateTime(), nullable=False),
    sa.Column('update_user', sa.BigInteger(), nullable=True),
    sa.Column('update_time', sa.DateTime(), nullable=False),
    sa.Column('status', sa.Integer(), nullable=False),
    sa.Column('is_deleted', sa.Integer(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_blade_report_file'))
    )
    with op.batch_alter_table('blade_report_file', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_blade_report_file_create_dept'), ['create_dept'], unique=False)
        batch_op.create_index(batch_op.f('ix_blade_report_file_is_deleted'), ['is_deleted'], unique=False)


def downgrade() -> None:
    for table in ('blade_report_file', 'blade_code'):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_index(batch_op.f(f'ix_{table}_is_deleted'))
            batch_op.drop_index(batch_op.f(f'ix_{table}_create_dept'))
        op.drop_table(table)
