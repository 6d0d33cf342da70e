import { createElement } from 'react';
import { AttachName } from '../../components/files/AttachName';
import { AttachUpload } from '../../components/files/AttachUpload';
import { humanSize } from '../../components/files/api';
import { defineResource } from '../types';

export const ATTACH_PATH = '/resource/attach';

/**
 * Attachments (`/api/blade-resource/attach`): the tenant's uploaded files. They are made by uploading (the toolbar's
 * 上传, `POST /api/blade-fics/file/upload`), downloaded by their name (with the session's token) and deleted with
 * their stored file; the page does not edit them (no add or edit form).
 */
export default defineResource({
  code: 'attach',
  resource: 'attach',
  title: 'resource.attach',
  api: { submit: undefined },
  toolbarExtras: [(props) => createElement(AttachUpload, props)],
  columns: [
    {
      prop: 'originalName',
      label: 'attach.originalName',
      search: true,
      width: 240,
      format: (_value, row) => createElement(AttachName, { row }),
    },
    { prop: 'extension', label: 'attach.extension', search: true, searchParam: 'extension_equal', width: 90 },
    { prop: 'attachSize', label: 'attach.attachSize', hideInSearch: true, width: 100, format: (value) => humanSize(value) },
    { prop: 'domain', label: 'attach.domain', hideInSearch: true, ellipsis: true, width: 200 },
    { prop: 'name', label: 'attach.name', hideInSearch: true, hideInTable: true },
    { prop: 'contentType', label: 'attach.contentType', hideInSearch: true, hideInTable: true },
    { prop: 'createTime', label: 'common.createTime', type: 'datetime', searchRange: true, search: true, width: 170 },
  ],
});
