import { useEffect, useRef, useState } from 'react';
import { Alert, Button, Flex, Modal, Progress, Spin, Switch, Table, Typography, Upload } from 'antd';
import { DownloadOutlined, FileExcelOutlined, InboxOutlined, UploadOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import type { TransferCalls } from '../../api/manifest';
import { ApiError, download, get, post, type Params } from '../../api/request';
import { exportFileName } from './exportName';
import { fieldOfMessage, messageForField } from './rules';
import { saveFile } from './saveFile';
import { IMPORT_ACCEPT, isSpreadsheet, type ImportReport } from './spreadsheet';

/** How often the report of a background import is read. */
const POLL_MS = 1_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Downloads `url` (with the page's filters) and saves it under the server's file name. */
async function fetchAndSave(url: string, params: Params | undefined, fallbackName: string): Promise<void> {
  const { blob, filename } = await download(url, params, { fallbackName });
  saveFile(blob, filename);
}

/** "Export": the list as the server writes it (.xlsx), with the current search filters. */
export function ExportButton({ url, params, name }: { url: string; params: Params; name: string }) {
  const { t } = useTranslation();
  const [busy, setBusy] = useState(false);
  const run = async () => {
    setBusy(true);
    try {
      await fetchAndSave(url, params, exportFileName(name, params));
    } catch {
      // the request wrapper showed why
    } finally {
      setBusy(false);
    }
  };
  return (
    <Button icon={<DownloadOutlined />} loading={busy} onClick={() => void run()} title={t('crud.exportHint')}>
      {t('crud.exportList')}
    </Button>
  );
}

type Phase = 'idle' | 'uploading' | 'running' | 'done';

/**
 * "Import" and its dialog: template, overwrite switch, upload, progress of a background job, the report. `labels`
 * (field → label) let a refused row's reason name its field as the page does ("ratedLoadKg 超出允许范围" reads
 * "额定载重 (kg) 超出允许范围").
 */
export function ImportButton({
  calls,
  title,
  labels,
  onImported,
}: {
  calls: TransferCalls;
  title: string;
  labels: Record<string, string>;
  onImported: () => void;
}) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const [covered, setCovered] = useState(false);
  const [phase, setPhase] = useState<Phase>('idle');
  const [fileName, setFileName] = useState('');
  const [report, setReport] = useState<ImportReport | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [templateBusy, setTemplateBusy] = useState(false);
  // polling stops when the page goes; closing the dialog does not stop a job (reopening shows how it goes)
  const alive = useRef(true);
  useEffect(() => {
    alive.current = true;
    return () => {
      alive.current = false;
    };
  }, []);

  const busy = phase === 'uploading' || phase === 'running';

  const start = async (file: File) => {
    setProblem(null);
    setReport(null);
    setFileName(file.name);
    setPhase('uploading');
    const form = new FormData();
    form.append('file', file);
    try {
      let current = await post<ImportReport>(calls.import!, undefined, {
        params: { isCovered: covered ? 1 : 0 },
        form,
        silent: true,
        // up to 200 rows are saved before the answer
        timeout: 120_000,
      });
      setReport(current);
      // a larger file goes on in the background: its report grows until `finished`
      if (!current.finished) {
        setPhase('running');
        while (!current.finished) {
          await sleep(POLL_MS);
          if (!alive.current) return;
          current = await get<ImportReport>(calls.progress!, { jobId: current.jobId }, { silent: true });
          setReport(current);
        }
      }
      setPhase('done');
      if (current.created > 0 || current.updated > 0) onImported();
    } catch (e) {
      if (!alive.current) return;
      setProblem(e instanceof ApiError ? e.message : String(e));
      setPhase('idle');
    }
  };

  const choose = (file: File) => {
    if (busy) return Upload.LIST_IGNORE;
    if (!isSpreadsheet(file.name)) {
      setProblem(t('crud.onlyExcel', { name: file.name }));
      return Upload.LIST_IGNORE;
    }
    void start(file);
    // the dialog sends the file itself
    return false;
  };

  const template = async () => {
    setTemplateBusy(true);
    try {
      await fetchAndSave(calls.template!, undefined, `${title}-template.xlsx`);
    } catch {
      // the request wrapper showed why
    } finally {
      setTemplateBusy(false);
    }
  };

  const again = () => {
    setPhase('idle');
    setReport(null);
    setProblem(null);
  };

  const percent = report && report.total > 0 ? Math.floor((report.done / report.total) * 100) : 0;
  const fields = Object.keys(labels);
  const reason = (message: string) => {
    const field = fieldOfMessage(message, fields);
    return field ? messageForField(message, field, labels[field]) : message;
  };
  const errors = (report?.errors ?? []).map((e) => ({ ...e, message: reason(e.message) }));

  return (
    <>
      <Button icon={<UploadOutlined />} onClick={() => setOpen(true)}>
        {t('crud.import')}
      </Button>
      <Modal
        open={open}
        title={t('crud.importTitle', { title })}
        width={640}
        onCancel={() => setOpen(false)}
        mask={{ closable: !busy }}
        footer={
          <Flex justify="end" gap={8}>
            {phase === 'done' && <Button onClick={again}>{t('crud.importAgain')}</Button>}
            <Button type={phase === 'done' ? 'primary' : 'default'} onClick={() => setOpen(false)}>
              {t('common.close')}
            </Button>
          </Flex>
        }
      >
        <Flex vertical gap={16} className="crud-import">
          {calls.template && (
            <Flex align="center" gap={8} wrap>
              <Button type="link" icon={<FileExcelOutlined />} loading={templateBusy} onClick={() => void template()} style={{ paddingInline: 0 }}>
                {t('crud.template')}
              </Button>
              <Typography.Text type="secondary">{t('crud.templateHelp')}</Typography.Text>
            </Flex>
          )}
          <Flex align="center" gap={8}>
            <Switch checked={covered} onChange={setCovered} disabled={busy} aria-label={t('crud.overwrite')} />
            <span>{t('crud.overwrite')}</span>
          </Flex>
          <Typography.Text type="secondary" style={{ marginTop: -8 }}>
            {t(covered ? 'crud.overwriteOn' : 'crud.overwriteOff')}
          </Typography.Text>

          {phase !== 'done' && (
            <Upload.Dragger accept={IMPORT_ACCEPT} multiple={false} showUploadList={false} beforeUpload={choose} disabled={busy}>
              <p className="ant-upload-drag-icon">
                <InboxOutlined />
              </p>
              <p className="ant-upload-text">{t('crud.uploadText')}</p>
              <p className="ant-upload-hint">{t('crud.uploadHint')}</p>
            </Upload.Dragger>
          )}

          {problem && <Alert type="error" showIcon title={problem} data-testid="import-problem" />}

          {phase === 'uploading' && (
            <Flex align="center" gap={12} data-testid="import-uploading">
              <Spin />
              <span>{t('crud.uploading', { name: fileName })}</span>
            </Flex>
          )}

          {phase === 'running' && report && (
            <div data-testid="import-running">
              <Progress percent={percent} status="active" />
              <Typography.Text type="secondary">{t('crud.importing', { done: report.done, total: report.total })}</Typography.Text>
            </div>
          )}

          {phase === 'done' && report && (
            <Flex vertical gap={12} data-testid="import-result">
              <Alert
                type={report.failed > 0 ? 'warning' : 'success'}
                showIcon
                title={t('crud.importDone', { name: fileName })}
                description={t('crud.importSummary', {
                  total: report.total,
                  created: report.created,
                  updated: report.updated,
                  failed: report.failed,
                })}
              />
              {errors.length > 0 && (
                <Table
                  size="small"
                  rowKey={(e) => `${e.row}-${e.message}`}
                  title={() => t('crud.importErrors')}
                  dataSource={errors}
                  pagination={errors.length > 8 ? { pageSize: 8, size: 'small' } : false}
                  columns={[
                    { title: t('crud.importRow'), dataIndex: 'row', key: 'row', width: 90 },
                    { title: t('crud.importReason'), dataIndex: 'message', key: 'message' },
                  ]}
                />
              )}
            </Flex>
          )}
        </Flex>
      </Modal>
    </>
  );
}
