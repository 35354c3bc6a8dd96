// One entry point for both hosts (JupyterLab and the standalone page): the right view for a MIME type,
// created once per element and updated in place afterwards.

import { DashboardView } from './dashboard';
import { GraphView } from './render';
import { DASHBOARD_MIME, DashboardDoc, GraphDoc } from './schema';
import { TensorBoardView } from './tensorboard';
import { TENSORBOARD_MIME, TensorBoardDoc } from './tensorboard_schema';

export type AnyView = GraphView | DashboardView | TensorBoardView;

/** Render `data` of `mimeType` into `host`, reusing `view` when it is of the right kind. */
export function renderInto(host: HTMLElement, mimeType: string, data: unknown, view: AnyView | null): AnyView {
  if (mimeType === TENSORBOARD_MIME) {
    const board = view instanceof TensorBoardView ? view : new TensorBoardView(host);
    if (view && view !== board) view.dispose();
    board.update(data as TensorBoardDoc);
    return board;
  }
  if (mimeType === DASHBOARD_MIME) {
    const dashboard = view instanceof DashboardView ? view : new DashboardView(host);
    if (view && view !== dashboard) view.dispose();
    dashboard.update(data as DashboardDoc);
    return dashboard;
  }
  const graph = view instanceof GraphView ? view : new GraphView(host);
  if (view && view !== graph) view.dispose();
  graph.update(data as GraphDoc);
  return graph;
}
