import { apiGet, apiGetAt, apiPost } from '../../api/client';
import type { components } from '../../api/schema';

type Schemas = components['schemas'];

/** One in-site message of the signed-in user's (a notice published, a vehicle's alarm). */
export type SiteMessage = Schemas['SiteMessageOut'];
/** How the messages of one alarm type are sent and who receives them. */
export type Receive = Schemas['ReceiveOut'];
/** A user chosen to receive one message type. */
export type ReceiveUser = Schemas['ReceiveUserOut'];
/** A user that can be chosen. */
export type UserChoice = Schemas['UserChoice'];

const FICS = '/api/blade-fics/fics';
/** The business dictionary of message types. */
export const MESSAGE_TYPE = 'message_type';
/** The badge shows "99+" past this. */
export const BADGE_MAX = 99;
/** The unread count is read again this often (and after every change made here). */
export const COUNT_REFRESH_MS = 60_000;
/** The react-query key of the unread count; invalidating it refreshes the bell. */
export const COUNT_KEY = ['message', 'count'] as const;
/** The react-query key prefix of the message lists. */
export const LIST_KEY = ['message', 'list'] as const;

export interface ListFilter {
  current: number;
  size: number;
  msgType?: number;
  isRead?: number;
}

export const unreadCount = () => apiGet(`${FICS}/message/getNotReadCount`, undefined, { silent: true });
export const messageList = (filter: ListFilter) => apiGet(`${FICS}/message/messageList`, filter);
/** Opening a message reads it (the server marks it read). */
export const messageInfo = (id: string) => apiGetAt('/api/blade-fics/fics/message/messageInfo/{id}', { id });
export const markRead = (ids: string[]) => apiPost(`${FICS}/siteMsg/markRead`, undefined, { params: { ids: ids.join(',') } });
export const allRead = () => apiPost(`${FICS}/siteMsg/allRead`);
export const removeMessages = (ids: string[]) => apiPost(`${FICS}/siteMsg/del`, undefined, { params: { ids: ids.join(',') } });

export const receivePage = () => apiGet(`${FICS}/siteMsgReceive/page`, { current: 1, size: 100 });
export const setSendType = (msgType: number, on: boolean) =>
  apiPost(`${FICS}/siteMsgReceive/checkSendType`, { msgType, sendType: on ? '1' : '' });
export const restoreDefault = (msgType: number) => apiPost(`${FICS}/siteMsgReceive/restoreDefault`, { msgType });
export const receiveUsers = (msgType: number, current: number, size: number) =>
  apiGet(`${FICS}/siteMsgReceiveUser/page`, { msgType, current, size });
export const pickableUsers = (msgType: number, current: number, size: number, account?: string, realName?: string) =>
  apiGet(`${FICS}/siteMsgReceiveUser/selectUserList`, { msgType, current, size, account, realName });
export const chooseUsers = (msgType: number, userIds: string[]) =>
  apiPost(`${FICS}/siteMsgReceiveUser/selectUserSub`, { msgType, userIds: userIds.join(',') });
export const dropChoices = (ids: string[]) =>
  apiPost(`${FICS}/siteMsgReceiveUser/del`, undefined, { params: { ids: ids.join(',') } });

