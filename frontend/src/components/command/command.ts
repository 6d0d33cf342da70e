import { apiPost } from '../../api/client';
import type { Option, Row, Translate } from '../../resources/types';


/** The button that shows "cancel" on the command log (seeded under the menu `command_log`). */
export const CANCEL_PERMISSION = 'command_log_cancel';

/** A command's life (backend `telemetry.commands`): pending → sent → acknowledged | failed | timeout, or cancelled. */
export const COMMAND_STATUSES = ['pending', 'sent', 'acknowledged', 'failed', 'timeout', 'cancelled'] as const;
export type CommandStatus = (typeof COMMAND_STATUSES)[number];

/** Ant Design Tag colours of the statuses. */
export const STATUS_COLORS: Record<CommandStatus, string> = {
  pending: 'gold',
  sent: 'processing',
  acknowledged: 'success',
  failed: 'error',
  timeout: 'warning',
  cancelled: 'default',
};

export function isStatus(value: unknown): value is CommandStatus {
  return typeof value === 'string' && (COMMAND_STATUSES as readonly string[]).includes(value);
}

/**
 * The names commands are stored under (`fics_command.name`): the settings screens' calls, the generic
 * `/api/liftdesk/command/send` types, the fences' area commands and what the platform asks by itself. Each has a
 * label `command.names.<name>`; a name not listed shows as it is.
 */
export const COMMAND_NAMES = [
  'queryParams',
  'setParams',
  'lockCar',
  'rateLimiting',
  'crashThresholdValue',
  'overloadThresholdValue',
  'speedCalibration',
  'weightCalibration',
  'funcset',
  'queryFunctionSwitches',
  'hardwareVersionNumberQuery',
  'softwareVersionNumberQuery',
  'versionNumberQuery',
  'versionUpdate',
  'terminal_control',
  'vehicle_control',
  'text',
  'query_location',
  'confirm_alarm',
  'query_params',
  'query_attributes',
  'set_rectangle_areas',
  'delete_rectangle_areas',
  'set_circle_areas',
  'delete_circle_areas',
  'set_polygon_area',
  'delete_polygon_areas',
  'set_params',
  'query_all_params',
  'upgrade',
] as const;

export const statusOptions: Option[] = COMMAND_STATUSES.map((s) => ({ value: s, label: `command.status.${s}` }));
export const nameOptions: Option[] = COMMAND_NAMES.map((n) => ({ value: n, label: `command.names.${n}` }));

/** The label of a command name, or the name itself when it has none. */
export function commandLabel(name: unknown, t: Translate): string {
  if (typeof name !== 'string' || !name) return '';
  const key = `command.names.${name}`;
  const label = t(key);
  return label && label !== key ? label : name;
}

/** Ids of the rows that can still be cancelled (pending: queued, not sent yet). */
export function pendingIds(rows: Row[]): string[] {
  return rows.filter((r) => r.status === 'pending' && r.id !== undefined).map((r) => String(r.id));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === 'object' && !Array.isArray(value);
}

const MAX_SUMMARY = 80;

function clip(text: string): string {
  return text.length > MAX_SUMMARY ? `${text.slice(0, MAX_SUMMARY - 1)}…` : text;
}

/** The server's error texts (English, fixed) in the user's language; others as they are. */
export function errorText(error: string, t: Translate): string {
  const noReply = /^no reply after (\d+) attempts?$/.exec(error);
  if (noReply) return t('command.errors.noReply', { count: Number(noReply[1]) });
  const known: Record<string, string> = {
    expired: 'command.errors.expired',
    'no reply (gateway restarted)': 'command.errors.gatewayRestarted',
    'terminal reported failure': 'command.errors.failure',
    'terminal reported a malformed message': 'command.errors.badMessage',
    'terminal does not support the command': 'command.errors.unsupported',
    'upgrade failure': 'command.errors.upgradeFailure',
    'upgrade cancelled': 'command.errors.upgradeCancelled',
  };
  if (known[error]) return t(known[error]);
  const unsent = /^cannot be sent: (.*)$/.exec(error);
  if (unsent) return t('command.errors.cannotSend', { reason: unsent[1] });
  return error;
}

const UPGRADE_OUTCOMES = ['success', 'failure', 'cancelled'];

function resultText(result: unknown, t: Translate): string {
  if (!isRecord(result)) return result === null || result === undefined || result === '' ? '' : clip(JSON.stringify(result));
  if (Array.isArray(result.params)) return t('command.summary.params', { count: result.params.length });
  if (isRecord(result.attributes)) {
    const a = result.attributes;
    return t('command.summary.attributes', { hardware: String(a.hardwareVersion ?? '-'), firmware: String(a.firmwareVersion ?? '-') });
  }
  if (typeof result.lat === 'number' && typeof result.lon === 'number')
    return t('command.summary.location', { lat: result.lat.toFixed(5), lon: result.lon.toFixed(5) });
  if (typeof result.outcome === 'string')
    return UPGRADE_OUTCOMES.includes(result.outcome) ? t(`command.summary.upgrade.${result.outcome}`) : result.outcome;
  if (result.received === true) return t('command.summary.received');
  if (result.reply === 0) return t('command.summary.acknowledged');
  return clip(JSON.stringify(result));
}

/** One line on what became of a command: why it failed, what the terminal answered, or what it waits for. */
export function commandSummary(row: Row, t: Translate): string {
  const status = row.status;
  const error = typeof row.error === 'string' ? row.error : '';
  if (status === 'cancelled') return '';
  if ((status === 'failed' || status === 'timeout') && error) return clip(errorText(error, t));
  if (status === 'pending') return t('command.summary.pending');
  if (status === 'sent') return t('command.summary.sent');
  return resultText(row.result, t);
}

const INLINE_WIDTH = 72;

function isLeaf(value: unknown): boolean {
  return value === null || typeof value !== 'object' || Object.keys(value).length === 0;
}

/** JSON of a value on one line, with a space after `:` and `,`. */
function inlineJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(inlineJson).join(', ')}]`;
  if (isRecord(value))
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}: ${inlineJson(v)}`)
      .join(', ')}}`;
  return JSON.stringify(value) ?? 'null';
}

function indentJson(value: unknown, indent: string): string {
  if (isLeaf(value)) return inlineJson(value);
  // a short object or list of plain values (e.g. one terminal parameter) stays on one line
  if (indent && Object.values(value as object).every(isLeaf)) {
    const line = inlineJson(value);
    if (indent.length + line.length <= INLINE_WIDTH) return line;
  }
  const inner = `${indent}  `;
  const items = Array.isArray(value)
    ? value.map((v) => inner + indentJson(v, inner))
    : Object.entries(value as object).map(([k, v]) => `${inner}${JSON.stringify(k)}: ${indentJson(v, inner)}`);
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  return `${open}\n${items.join(',\n')}\n${indent}${close}`;
}

/** Payload and result JSON, indented for reading; short objects of plain values (a parameter) on one line. */
export function prettyJson(value: unknown): string {
  if (value === null || value === undefined || value === '') return '';
  if (typeof value === 'string') return value;
  return indentJson(value, '');
}

/** Cancels pending commands: all of them or none (the server refuses the lot if one is not pending any more). */
export async function cancelCommands(ids: string[]): Promise<Row[]> {
  const done = await apiPost('/api/liftdesk/command/cancel', undefined, {
    params: { ids: ids.join(',') },
    silent: true,
  });
  return (done ?? []) as Row[];
}
