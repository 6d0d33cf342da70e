import { createElement, lazy } from 'react';
import { Tag, Typography } from 'antd';
import { action } from '../../api/manifest';
import { PaperActions } from '../../components/paper/PaperActions';
import { PaperPictures } from '../../components/paper/PaperPictures';
import {
  ARCHIVED,
  AUDIT_COLORS,
  LENT,
  archiveOptions,
  auditOptions,
  daysTone,
  loanOptions,
  picturesOf,
  typeOptions,
} from '../../components/paper/paper';
import { defineResource, type ToolbarExtra } from '../types';

export const PAPER_PATH = '/driver/paper';

const LoanRecords = lazy(() => import('../../components/paper/LoanRecords'));
const PaperViewDialog = lazy(() => import('../../components/paper/PaperViewDialog'));
const Actions: ToolbarExtra = (props) => createElement(PaperActions, props);
const dateOnly = (value: unknown) => (value ? String(value).slice(0, 10) : '-');

/**
 * 司机证件 (spec 001 §3 Certificate, §4 its states, §5 its rules): the drivers' papers with review (submit, first
 * and second audit), loan and return, archive, pictures, loan records and history. The calls, types and limits come
 * from the server's `driver_paper` resource; the states change only through the toolbar's actions.
 */
export default defineResource({
  code: 'driver_paper',
  resource: 'driver_paper',
  title: 'resource.driverPaper',
  toolbarExtras: [Actions],
  rowActions: [
    { key: 'paperView', label: 'paper.viewAction', permission: 'view', open: PaperViewDialog },
    { key: 'loanRecords', label: 'paper.loanRecords', permission: 'view', open: LoanRecords },
  ],
  detailWidth: 640,
  columns: [
    {
      prop: 'driverId',
      label: 'paper.driver',
      type: 'select',
      remote: { url: action('driver_paper', 'holders'), labelKey: 'name', valueKey: 'id' },
      displayProp: 'driverName',
      hideInSearch: true,
      width: 110,
    },
    { prop: 'driverName', label: 'paper.driverName', hideInForm: true, hideInTable: true, search: true, searchParam: 'driverName', searchOrder: 2 },
    { prop: 'paperNumber', label: 'paper.paperNumber', search: true, searchParam: 'paperNumber_like', searchOrder: 1, width: 160 },
    { prop: 'paperType', label: 'paper.paperType', type: 'select', options: typeOptions, valueType: 'number', width: 150 },
    {
      prop: 'auditStatus',
      label: 'paper.auditStatus',
      type: 'select',
      options: auditOptions,
      readOnly: true,
      search: true,
      searchParam: 'auditStatus_equal',
      searchOrder: 3,
      width: 110,
      format: (value, _row, t) => createElement(Tag, { color: AUDIT_COLORS[Number(value ?? 0)] }, t(`paper.audit.s${Number(value ?? 0)}`)),
    },
    {
      prop: 'loanStatus',
      label: 'paper.loanStatus',
      type: 'select',
      options: loanOptions,
      readOnly: true,
      search: true,
      searchParam: 'loanStatus_equal',
      searchOrder: 4,
      width: 90,
      format: (value, _row, t) =>
        createElement(Tag, { color: Number(value) === LENT ? 'orange' : 'default' }, t(`paper.loan.s${Number(value ?? 0)}`)),
    },
    {
      prop: 'archiveStatus',
      label: 'paper.archiveStatus',
      type: 'select',
      options: archiveOptions,
      readOnly: true,
      search: true,
      searchParam: 'archiveStatus_equal',
      searchOrder: 5,
      width: 90,
      format: (value, _row, t) =>
        createElement(Tag, { color: Number(value) === ARCHIVED ? 'purple' : 'default' }, t(`paper.archive.s${Number(value ?? 0)}`)),
    },
    { prop: 'firstReceiveDate', label: 'paper.firstReceiveDate', type: 'date', hideInTable: true },
    {
      prop: 'validUntil',
      label: 'paper.validUntil',
      type: 'date',
      width: 110,
      format: (value, row) => {
        const tone = daysTone(row.daysLeft);
        return tone ? createElement(Typography.Text, { type: tone === 'error' ? 'danger' : 'warning' }, dateOnly(value)) : dateOnly(value);
      },
    },
    { prop: 'issuingAuthority', label: 'paper.issuingAuthority', width: 140, ellipsis: true },
    { prop: 'reviewDate', label: 'paper.reviewDate', type: 'date', hideInTable: true },
    { prop: 'nextReviewDate', label: 'paper.nextReviewDate', type: 'date', hideInTable: true },
    { prop: 'mechanismName', label: 'paper.mechanism', hideInForm: true, width: 130 },
    { prop: 'loanOrg', label: 'paper.loanOrg', readOnly: true, hideInTable: true, hideInForm: true },
    { prop: 'loanReturnDate', label: 'paper.returnDate', readOnly: true, hideInTable: true, hideInForm: true, type: 'date' },
    {
      prop: 'pictures',
      label: 'paper.pictures.label',
      input: PaperPictures,
      wide: true,
      hideInTable: true,
      hideInSearch: true,
      format: (value, _row, t) => t('paper.pictures.count', { count: picturesOf(value).length }),
    },
    { prop: 'remark', label: 'common.remark', type: 'textarea', hideInTable: true },
    { prop: 'createTime', label: 'common.createTime', type: 'datetime', readOnly: true, hideInTable: true },
  ],
});
