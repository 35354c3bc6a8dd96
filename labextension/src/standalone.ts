// The same renderer without JupyterLab, for plain web pages (the site's graph playground):
//   <link rel="stylesheet" href="webflow-graph.css"><script src="webflow-graph.js"></script>
//   webflowGraph.renderGraph(document.getElementById('g'), doc)   // call again to update in place
//   webflowGraph.renderDashboard(element, dashboardDoc)
//   webflowGraph.renderTensorBoard(element, tensorboardDoc)

import { DASHBOARD_MIME, DashboardDoc, GRAPH_MIME, GraphDoc } from './schema';
import { TENSORBOARD_MIME, TensorBoardDoc } from './tensorboard_schema';
import { AnyView, renderInto } from './views';

const views = new WeakMap<HTMLElement, AnyView>();

export function renderGraph(element: HTMLElement, doc: GraphDoc): AnyView {
  const view = renderInto(element, GRAPH_MIME, doc, views.get(element) ?? null);
  views.set(element, view);
  return view;
}

export function renderDashboard(element: HTMLElement, doc: DashboardDoc): AnyView {
  const view = renderInto(element, DASHBOARD_MIME, doc, views.get(element) ?? null);
  views.set(element, view);
  return view;
}

export function renderTensorBoard(element: HTMLElement, doc: TensorBoardDoc): AnyView {
  const view = renderInto(element, TENSORBOARD_MIME, doc, views.get(element) ?? null);
  views.set(element, view);
  return view;
}

declare global {
  interface Window {
    webflowGraph: { renderGraph: typeof renderGraph; renderDashboard: typeof renderDashboard;
      renderTensorBoard: typeof renderTensorBoard; version: number };
  }
}

if (typeof window !== 'undefined') window.webflowGraph = { renderGraph, renderDashboard, renderTensorBoard, version: 1 };
