import { createElement, type ComponentType } from 'react';
import { WebGLLayer } from './WebGLLayer';

/** `Layer` inside a `WebGLLayer` (its props, a `ref` among them, passed on). */
export function webglLayer<P extends object>(Layer: ComponentType<P>): ComponentType<P> {
  function Gated(props: P) {
    return createElement(WebGLLayer, null, createElement(Layer, props));
  }
  Gated.displayName = `WebGL(${Layer.displayName ?? Layer.name})`;
  return Gated;
}
