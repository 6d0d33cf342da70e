import { memo, useCallback, useEffect, useRef, useState } from 'react';
import { Badge, Empty, Tag } from 'antd';
import type { TFunction } from 'i18next';
import type { LiveVehicle } from '../../live/types';
import { visibleRange } from './monitor';

/** Height of one row (px): the list renders only the rows in view (plus a few), whatever the fleet's size. */
const ROW_HEIGHT = 36;

interface RowProps {
  vehicle: LiveVehicle;
  top: number;
  selected: boolean;
  /** What the row says besides its vehicle (plain values, so that a row re-renders only when what it shows changed). */
  age: string;
  state: string;
  color: string | undefined;
  onSelect: (id: string) => void;
}

/** One vehicle; the live store keeps an unchanged vehicle's object, so a row re-renders only when its vehicle did. */
const Row = memo(function Row({ vehicle: v, top, selected, age, state, color, onSelect }: RowProps) {
  return (
    <div
      role="row"
      className={`monitor-row ant-table-row${selected ? ' monitor-row-selected' : ''}`}
      style={{ transform: `translateY(${top}px)` }}
      data-testid={`vehicle-row-${v.carNo ?? v.carId}`}
      onClick={() => onSelect(v.carId)}
    >
      <div role="cell" className="monitor-cell monitor-cell-name" title={v.carNo ?? v.deviceNumber ?? ''}>
        {v.alarms.length > 0 && <Badge status="error" />}
        <span>{v.carNo ?? v.deviceNumber}</span>
      </div>
      <div role="cell" className="monitor-cell">
        <Tag color={color}>{state}</Tag>
      </div>
      <div role="cell" className="monitor-cell monitor-cell-num">
        {v.speed ? v.speed.toFixed(1) : '0'}
      </div>
      <div role="cell" className="monitor-cell">
        {age}
      </div>
    </div>
  );
});

export interface RowText {
  state: string;
  color: string | undefined;
  age: string;
}

export interface VehicleListProps {
  rows: readonly LiveVehicle[];
  selected: string | null;
  height: number;
  onSelect: (id: string) => void;
  t: TFunction;
  /** A vehicle's state (label and tag colour) and "n s ago" text. */
  describe: (v: LiveVehicle) => RowText;
  /** Scrolls the row of this vehicle into view when it changes (a vehicle selected on the map). */
  reveal?: string | null;
}

/**
 * The live vehicle list: a header and a window of rows over a scroller as tall as the whole list, so 2,000 vehicles
 * cost as much as the twenty in view (the rows are absolutely placed; scrolling re-renders once per frame).
 */
export function VehicleList({ rows, selected, height, onSelect, t, describe, reveal }: VehicleListProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const frame = useRef<number | null>(null);
  const onScroll = useCallback(() => {
    if (frame.current !== null) return;
    frame.current = requestAnimationFrame(() => {
      frame.current = null;
      setScrollTop(scroller.current?.scrollTop ?? 0);
    });
  }, []);
  useEffect(() => () => {
    if (frame.current !== null) cancelAnimationFrame(frame.current);
  }, []);
  useEffect(() => {
    const el = scroller.current;
    if (!reveal || !el) return;
    const index = rows.findIndex((v) => v.carId === reveal);
    if (index < 0) return;
    const top = index * ROW_HEIGHT;
    if (top < el.scrollTop || top + ROW_HEIGHT > el.scrollTop + el.clientHeight) el.scrollTop = Math.max(0, top - el.clientHeight / 2);
    // rows is left out on purpose: only a new selection scrolls, not every update
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [reveal]);
  const bodyHeight = Math.max(80, height - ROW_HEIGHT);
  const [first, last] = visibleRange(rows.length, scrollTop, bodyHeight, ROW_HEIGHT);
  const slice = rows.slice(first, last);
  return (
    <div className="monitor-table" role="table">
      <div className="monitor-row monitor-head" role="row">
        <div role="columnheader" className="monitor-cell monitor-cell-name">
          {t('vehicle.carNo')}
        </div>
        <div role="columnheader" className="monitor-cell">
          {t('vehicle.state')}
        </div>
        <div role="columnheader" className="monitor-cell monitor-cell-num">
          {t('monitor.speedShort')}
        </div>
        <div role="columnheader" className="monitor-cell">
          {t('monitor.updated')}
        </div>
      </div>
      {/* contained: a row's change is laid out and painted within the list, never the page around it */}
      <div className="monitor-body" ref={scroller} style={{ height: bodyHeight, contain: 'strict' }} onScroll={onScroll}>
        {rows.length === 0 ? (
          <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('monitor.noMatch')} />
        ) : (
          <div className="monitor-body-inner" style={{ height: rows.length * ROW_HEIGHT }}>
            {slice.map((v, i) => {
              const text = describe(v);
              return (
                <Row
                  key={v.carId}
                  vehicle={v}
                  top={(first + i) * ROW_HEIGHT}
                  selected={v.carId === selected}
                  state={text.state}
                  color={text.color}
                  age={text.age}
                  onSelect={onSelect}
                />
              );
            })}
          </div>
        )}
      </div>
    </div>
  );
}
