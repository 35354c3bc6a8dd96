// The JupyterLab MIME renderer extension: outputs of type application/vnd.webflow.graph+json and
// application/vnd.webflow.dashboard+json are drawn by GraphView / DashboardView, and
// application/vnd.webflow.tensorboard+json (a logdir's runs) by TensorBoardView.
// JupyterLab calls renderModel() again on the same renderer for update_display: the view updates in place.
// `safe: true`: the renderer never interprets markup (all user strings are text), so outputs of untrusted
// notebooks (e.g. a saved notebook opened without its kernel) may render too.

import { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import { Widget } from '@lumino/widgets';

import { DASHBOARD_MIME, GRAPH_MIME } from './schema';
import { TENSORBOARD_MIME } from './tensorboard_schema';
import { AnyView, renderInto } from './views';

export { GRAPH_MIME, DASHBOARD_MIME, TENSORBOARD_MIME };

export class WebflowRenderer extends Widget implements IRenderMime.IRenderer {
  private view: AnyView | null = null;

  constructor(private readonly mimeType: string) {
    super();
    this.addClass('wf-lab-output');
  }

  renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    this.view = renderInto(this.node, this.mimeType, model.data[this.mimeType], this.view);
    return Promise.resolve();
  }

  dispose(): void {
    this.view?.dispose();
    this.view = null;
    super.dispose();
  }
}

export const rendererFactory: IRenderMime.IRendererFactory = {
  safe: true,
  mimeTypes: [GRAPH_MIME, DASHBOARD_MIME, TENSORBOARD_MIME],
  createRenderer: (options) => new WebflowRenderer(options.mimeType)
};

const extension: IRenderMime.IExtension = {
  id: 'webflow-lab:renderer',
  rendererFactory,
  rank: 0,
  dataType: 'json'
};

export default extension;
