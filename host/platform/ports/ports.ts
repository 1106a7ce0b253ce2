import type { ConditionSource } from './alert-conditions.js';
import type { CodeSearchPort } from './code-search.js';
import type { FaxStatusPort } from './fax-status.js';

/** Every port one surface offers another; the platform declares them, surfaces provide them. */
export interface PortTypes {
  codeSearch: CodeSearchPort;
  faxStatus: FaxStatusPort;
}

/**
 * Where surfaces meet. A surface provides a port at install; another reads it when it needs it
 * (at request time, after every surface is installed), so the install order does not matter.
 */
export class Ports {
  private readonly provided: Partial<PortTypes> = {};
  private readonly conditionSources: ConditionSource[] = [];

  provide<K extends keyof PortTypes>(name: K, impl: PortTypes[K]): void {
    if (this.provided[name]) throw new Error(`port "${name}" is provided twice`);
    this.provided[name] = impl;
  }

  get<K extends keyof PortTypes>(name: K): PortTypes[K] | undefined {
    return this.provided[name];
  }

  require<K extends keyof PortTypes>(name: K): PortTypes[K] {
    const impl = this.provided[name];
    if (!impl) throw new Error(`port "${name}" has no provider: the surface that provides it is not installed`);
    return impl;
  }

  /** Alert conditions: each surface adds its own; the alert engine evaluates all of them. */
  addAlertConditions(...sources: ConditionSource[]): void {
    this.conditionSources.push(...sources);
  }

  alertConditions(): readonly ConditionSource[] {
    return this.conditionSources;
  }
}
