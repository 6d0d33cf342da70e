import { Component, type ErrorInfo, type ReactNode } from 'react';
import { Button, Result } from 'antd';
import i18n from '../i18n';
import { addErrorLog } from '../store/errorLog';

interface State {
  error: Error | null;
}

/** Keeps render errors as local logs and offers a way back instead of a blank page. */
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
      <Result
        status="500"
        title={i18n.t('error.crashTitle')}
        subTitle={this.state.error.message}
        extra={
          <Button type="primary" onClick={() => this.setState({ error: null })}>
            {i18n.t('error.retry')}
          </Button>
        }
      />
    );
  }
}
