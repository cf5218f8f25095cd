/**
 * The plan as data: what `--format json` prints (schema in README.md) and what every renderer
 * reads. Sorted, free of timestamps; Secret values never appear (only key names).
 */
import type { ImpactClass } from './classes.js';

export const PLAN_API_VERSION = 'baremetal-krm.dev/v1alpha1';
export const PLAN_KIND = 'Plan';
/** The annotation an operator sets on an object to accept impact classes: `deprovision,power-off`. */
export const ALLOW_ANNOTATION = 'baremetal-krm.dev/plan-allow';

export interface PlanResource {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
}

export interface Impact {
  class: ImpactClass;
  /** one line, from BMO/Flux semantics; never a Secret value */
  reason: string;
  /** accepted by the object's plan-allow annotation */
  allowed: boolean;
}

export interface PlanChange {
  /** the tree (PATH) this change is in */
  tree: string;
  action: 'added' | 'removed' | 'changed';
  resource: PlanResource;
  /** the BareMetalHost this change belongs to (the host itself, its Secrets, its firmware objects) */
  host?: string;
  /** the most severe impact's class and reason */
  class: ImpactClass;
  reason: string;
  /** every impact, most severe first */
  impacts: Impact[];
  /** changed fields (dotted paths; Secret keys by name only) */
  fields: string[];
  /** where: the head file for added and changed objects, the base file for removed ones */
  file?: string;
  line?: number;
}

export interface PlanTree {
  name: string;
  base: string;
  head: string;
  objects: { base: number; head: number };
}

export interface Plan {
  apiVersion: typeof PLAN_API_VERSION;
  kind: typeof PLAN_KIND;
  trees: PlanTree[];
  /** changes per class (every class, zero included), in the classes' order */
  summary: { class: ImpactClass; changes: number }[];
  changes: PlanChange[];
  /** the classes of --fail-on */
  failOn: ImpactClass[];
  /** the classes of --fail-on that some change has, not allowed by annotation */
  failed: ImpactClass[];
  /** unchanged objects (identical in both trees) */
  unchanged: number;
}
