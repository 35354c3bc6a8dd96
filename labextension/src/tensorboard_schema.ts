// Types of the TensorBoard document webflow.lab sends (webflow/lab/SCHEMA.md, "TensorBoard document", is the
// contract). Tags, run names, texts and messages are user data: put in as text only.

import { GraphDoc } from './schema';

export const TENSORBOARD_MIME = 'application/vnd.webflow.tensorboard+json';

/** [step, wall_time, value]; value null when it was NaN or infinite. */
export type ScalarPoint = [number, number, number | null];

export interface HistogramStep {
  step: number;
  wall_time: number;
  buckets: Array<[number | null, number | null, number | null]>; // [left, right, count]
}

export interface ImageEntry {
  step: number;
  wall_time: number;
  width: number;
  height: number;
  src: string; // data:image/png;base64,... (anything else is not shown)
}

export interface TextEntry {
  step: number;
  wall_time: number;
  shape: number[];
  values: string[];
}

/** tag -> run -> entries */
export type ByTag<T> = Record<string, Record<string, T[]>>;

export interface TensorBoardDoc {
  version: number;
  title?: string;
  logdir?: string;
  live?: boolean;
  runs: string[];
  scalars?: ByTag<ScalarPoint>;
  histograms?: ByTag<HistogramStep>;
  images?: ByTag<ImageEntry>;
  text?: ByTag<TextEntry>;
  graphs?: Record<string, { node_count: number; document: GraphDoc | null }>;
  other_tags?: Record<string, Record<string, string>>;
  errors?: Array<{ run: string; message: string }>;
}
