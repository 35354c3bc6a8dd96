// One entry point for both hosts (JupyterLab and the standalone page): the right view for a MIME type,
// created once per element and updated in place afterwards.

import { DashboardView } from './dashboard';
import { GraphView } from './render';
import { DASHBOARD_MIME, DashboardDoc, GraphDoc } from './schema';

export type AnyView = GraphView | DashboardView;

/** Render `data` of `mimeType` into `host`, reusing `view` when it is of the right kind. */
export function renderInto(host: HTMLElement, mimeType: string, data: unknown, view: AnyView | null): AnyView {
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
