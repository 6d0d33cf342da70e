import type { ResourceConfig } from './types';
import param from './system/param';
import dictTree from './system/dict';
import dictbiz from './system/dictbiz';
import post from './system/post';
import client from './system/client';
import tenant from './system/tenant';
import role from './system/role';
import menu from './system/menu';
import topmenu from './system/topmenu';
import dept from './system/dept';
import user from './system/user';
import fence, { FENCE_LIST_PATH } from './operation/fence';
import vehicle, { VEHICLE_LIST_PATH } from './fleet/vehicle';
import command, { COMMAND_LOG_PATH } from './fleet/command';
import logUsual, { LOG_USUAL_PATH } from './system/logUsual';
import logApi, { LOG_API_PATH } from './system/logApi';
import logError, { LOG_ERROR_PATH } from './system/logError';
import notice, { NOTICE_PATH } from './desk/notice';
import oss, { OSS_PATH } from './system/oss';
import attach, { ATTACH_PATH } from './system/attach';
import sms, { SMS_PATH } from './system/sms';
import driverPaper, { PAPER_PATH } from './driver/paper';
import driverReminder, { REMINDER_PATH } from './driver/reminder';
import driver, { DRIVER_LIST_PATH } from './driver/driver';
import driverApply, { DRIVER_APPLY_PATH } from './driver/driverApply';
import faceLog, { FACE_LOG_PATH } from './driver/faceLog';
import code, { CODE_PATH } from './system/code';
import reportFile, { REPORT_FILE_PATH } from './system/reportFile';

/**
 * Menu path → the resource declaration that renders it. The shell's route table (`PAGES` in app/pages) adds the
 * paths that render a page of their own.
 */
export const RESOURCE_PAGES: Record<string, ResourceConfig> = {
  '/system/param': param,
  '/system/dictbiz': dictbiz,
  '/system/post': post,
  '/system/client': client,
  '/system/tenant': tenant,
  '/authority/role': role,
  '/system/menu': menu,
  '/system/topmenu': topmenu,
  '/system/dept': dept,
  '/system/user': user,
  [FENCE_LIST_PATH]: fence,
  [VEHICLE_LIST_PATH]: vehicle,
  [COMMAND_LOG_PATH]: command,
  [LOG_USUAL_PATH]: logUsual,
  [LOG_API_PATH]: logApi,
  [LOG_ERROR_PATH]: logError,
  [NOTICE_PATH]: notice,
  [OSS_PATH]: oss,
  [ATTACH_PATH]: attach,
  [SMS_PATH]: sms,
  [PAPER_PATH]: driverPaper,
  [REMINDER_PATH]: driverReminder,
  [DRIVER_LIST_PATH]: driver,
  [DRIVER_APPLY_PATH]: driverApply,
  [FACE_LOG_PATH]: faceLog,
  [CODE_PATH]: code,
  [REPORT_FILE_PATH]: reportFile,
};

/** Kept for the horizontal dictionary view and tests. */
export const RESOURCES = { param, dict: dictTree, dictbiz, post, client, tenant, role, menu, topmenu, dept, user, fence, vehicle, command };
