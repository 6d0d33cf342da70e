import { Component, type ErrorInfo, type ReactNode } from 'react';
import { Button } from 'antd';
import { CloseCircleFilled } from '@ant-design/icons';
import i18n from '../i18n';
import { addErrorLog } from '../store/errorLog';

interface State {
  error: Error | null;
}

/**
 * Keeps render errors as local logs and offers a way back instead of a blank page. Its own markup (not antd's
 * Result, whose illustrations would weigh on every first page, the login one included).
 */
export class ErrorBoundary extends Component<{ children: ReactNode }, State> {
  override state: State = { error: null };

  static getDerivedStateFromError(error: Error): State {
    return { error };
  }

  override componentDidCatch(error: Error, info: ErrorInfo): void {
    addErrorLog({ type: 'error', message: error.message, stack: error.stack ?? '', info: info.componentStack ?? '' });
  }

  override render() {
    if (!this.state.error) return this.props.children;
    return (
      <div className="crash" role="alert">
        <CloseCircleFilled className="crash-icon" />
        <div className="crash-title">{i18n.t('error.crashTitle')}</div>
        <div className="crash-message">{this.state.error.message}</div>
        <Button type="primary" onClick={() => this.setState({ error: null })}>
          {i18n.t('error.retry')}
        </Button>
      </div>
    );
  }
}
