import { createElement } from 'react';
import { Tag } from 'antd';
import { defineResource } from '../types';

export const FACE_LOG_PATH = '/vision/face';

export const resultOptions = [
  { value: 0, label: 'face.result.r0' },
  { value: 1, label: 'face.result.r1' },
  { value: 2, label: 'face.result.r2' },
];
const RESULT_COLORS = ['success', 'error', 'warning'];
const orDash = (value: unknown) => (value === null || value === undefined || value === '' ? '-' : String(value));

/**
 * 司机管理 → 人脸识别记录: every face comparison the driver cameras made (0x0900 type 0xF2, MQTT `face`): when, which
 * vehicle, the driver matched (by the card serial the terminal named), the result and similarity, why it compared and
 * the terminal's picture reference. Read-only: written by the server from the terminals' reports.
 */
export default defineResource({
  code: 'face_log',
  resource: 'face_log',
  title: 'resource.faceLog',
  columns: [
    { prop: 'deviceTime', label: 'face.time', type: 'datetime', search: true, searchRange: true, searchOrder: 3, width: 170 },
    { prop: 'carNo', label: 'vehicle.carNo', search: true, searchParam: 'carNo', searchOrder: 1, width: 130, format: orDash },
    { prop: 'driverName', label: 'face.driver', width: 110, format: orDash },
    {
      prop: 'result',
      label: 'face.resultLabel',
      type: 'select',
      options: resultOptions,
      search: true,
      searchParam: 'result',
      searchOrder: 2,
      width: 100,
      format: (value, _row, t) => createElement(Tag, { color: RESULT_COLORS[Number(value)] ?? 'default' }, t(`face.result.r${Number(value ?? 0)}`)),
    },
    {
      prop: 'similarity',
      label: 'face.similarity',
      type: 'number',
      width: 100,
      format: (value) => (value === null || value === undefined ? '-' : `${Number(value).toFixed(1)} %`),
    },
    { prop: 'triggerName', label: 'face.trigger', width: 100, hideInSearch: true },
    { prop: 'cardSerial', label: 'face.card', width: 120, format: orDash },
    { prop: 'mechanismName', label: 'paper.mechanism', width: 140, format: orDash },
    { prop: 'deviceNumber', label: 'face.device', width: 140, hideInTable: true },
    { prop: 'photo', label: 'face.photo', ellipsis: true, width: 200, format: orDash },
    { prop: 'createTime', label: 'common.createTime', type: 'datetime', hideInTable: true },
  ],
});
