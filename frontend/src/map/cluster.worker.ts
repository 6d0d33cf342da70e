// The map's clustering off the page's main thread: takes a fleet (ClusterInput), answers its tables by zoom.
import { clusterFleet, transferables, type ClusterInput, type ZoomTable } from './cluster';

export interface ClusterRequest {
  seq: number;
  input: ClusterInput;
}
export interface ClusterReply {
  seq: number;
  tables: ZoomTable[];
}

const scope = self as unknown as {
  onmessage: ((e: MessageEvent<ClusterRequest>) => void) | null;
  postMessage: (message: ClusterReply, transfer: Transferable[]) => void;
};
scope.onmessage = (e) => {
  const tables = clusterFleet(e.data.input);
  scope.postMessage({ seq: e.data.seq, tables }, transferables(tables));
};
