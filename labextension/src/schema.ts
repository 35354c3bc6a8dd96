// Types of the two JSON documents webflow.lab sends (SCHEMA.md is the contract).
// Every string field is user data: the renderer only ever puts it in via textContent/setAttribute.

export const GRAPH_MIME = 'application/vnd.webflow.graph+json';
export const DASHBOARD_MIME = 'application/vnd.webflow.dashboard+json';

export type NodeKind = 'placeholder' | 'variable' | 'constant' | 'op' | 'gradient' | 'summary';
export const NODE_KINDS: readonly NodeKind[] = ['placeholder', 'variable', 'constant', 'op', 'gradient', 'summary'];

export interface SourceRef {
  file: string;
  line: number;
  function?: string;
  code?: string;
}

export interface KernelInfo {
  backend: string;
  python?: { function: string; file: string; line: number } | null;
  c_symbol?: string | null;
  hints?: string[];
}

export interface OutputInfo {
  name: string;
  shape: string;
  dtype: string;
}

export interface GraphNode {
  name: string;
  type: string;
  kind: NodeKind | string;
  scope?: string;
  device?: string;
  backend?: string | null;
  attrs?: Record<string, string>;
  outputs?: OutputInfo[];
  source?: SourceRef | null;
  kernel?: KernelInfo | null;
  timing_us?: number | null;
  executed?: boolean | null;
}

export interface GraphEdge {
  source: string;
  target: string;
  tensor?: string;
  input_index?: number;
  shape?: string;
  dtype?: string;
  control?: boolean;
}

export interface Operand {
  text: string;
  /** What the explanation calls it: its text when short, else the op's input name (`a`). */
  name?: string;
  shape?: string;
  start: number;
  end: number;
}

/** One frame of the failed call's traceback; `engine` frames (webflow, the standard library, installed
 * packages) are folded behind a toggle. */
export interface ErrorFrame {
  where: string;
  function: string;
  code: string;
  engine: boolean;
}

export interface ErrorInfo {
  node?: string | null;
  type: string;
  message: string;
  explanation?: string;
  /** The one explanation: which operands, their shapes, which dimension disagrees (short operand names). */
  summary?: string;
  /** The learner's line as IPython names it: `Cell In[3], line 3` (or `File "x.py", line 3`). */
  where?: string | null;
  frames?: ErrorFrame[];
  source?: SourceRef | null;
  operands?: Operand[];
}

export interface ProfileOp {
  node: string;
  type: string;
  backend?: string | null;
  start_us: number;
  duration_us: number;
  calls?: number;
}

export interface ProfileInfo {
  total_us: number;
  ops: ProfileOp[];
}

export interface GraphDoc {
  version: number;
  title?: string;
  live?: boolean;
  nodes: GraphNode[];
  edges: GraphEdge[];
  error?: ErrorInfo | null;
  profile?: ProfileInfo | null;
}

export interface DashboardDoc {
  version: number;
  title?: string;
  series: Record<string, Array<[number, number]>>;
  hints?: string[];
}

/** The node's name scope: the `scope` field, or the name up to its last "/" when the producer left it out. */
export function scopeOf(node: GraphNode): string {
  if (typeof node.scope === 'string') return node.scope;
  const cut = node.name.lastIndexOf('/');
  return cut < 0 ? '' : node.name.slice(0, cut);
}

/** A kind we have a CSS class for; anything else renders as a plain op. */
export function safeKind(kind: string | undefined): NodeKind {
  return (NODE_KINDS as readonly string[]).includes(kind ?? '') ? (kind as NodeKind) : 'op';
}
