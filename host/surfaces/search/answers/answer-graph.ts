/**
 * A small state graph (nodes, plain and conditional edges) for the answer path: retrieve →
 * grade → generate, or grade → rewrite → retrieve once more when the evidence is weak. The
 * nodes are the answer service's steps; this file holds only the wiring and its checks, so a
 * miswired graph fails when it is built (and the service falls back to the simple path).
 */
export type NodeName = 'retrieve' | 'grade' | 'rewrite' | 'generate';

export interface GraphState {
  question: string;
  /** The query retrieval uses (the question, or its rewrite). */
  query: string;
  rewrites: number;
  weak: boolean;
}

export type GraphNode<S extends GraphState> = (state: S) => Promise<void>;

type Edge<S> = NodeName | ((state: S) => NodeName | 'end');

export class AnswerGraph<S extends GraphState> {
  private constructor(
    private readonly nodes: Map<NodeName, GraphNode<S>>,
    private readonly edges: Map<NodeName, Edge<S> | 'end'>,
    private readonly entry: NodeName,
  ) {}

  /** Builds the answer graph over `nodes`; throws when a node is missing or an edge leads nowhere. */
  static build<S extends GraphState>(nodes: Record<NodeName, GraphNode<S>>, maxRewrites = 1): AnswerGraph<S> {
    const map = new Map<NodeName, GraphNode<S>>();
    for (const name of ['retrieve', 'grade', 'rewrite', 'generate'] as const) {
      if (typeof nodes[name] !== 'function') throw new Error(`answer graph: node "${name}" is missing`);
      map.set(name, nodes[name]);
    }
    const edges = new Map<NodeName, Edge<S> | 'end'>([
      ['retrieve', 'grade'],
      ['grade', (s: S) => (s.weak && s.rewrites < maxRewrites ? 'rewrite' : 'generate')],
      ['rewrite', 'retrieve'],
      ['generate', 'end'],
    ]);
    return new AnswerGraph(map, edges, 'retrieve');
  }

  /** Runs from the entry node to the end; a node's error ends the run with that error. */
  async run(state: S, onStep?: (node: NodeName) => void): Promise<S> {
    let current: NodeName | 'end' = this.entry;
    // Each node may run at most a few times: a guard against a cycle the edges did not bound.
    for (let steps = 0; current !== 'end'; steps++) {
      if (steps > 16) throw new Error('answer graph: too many steps');
      onStep?.(current);
      await this.nodes.get(current)!(state);
      const edge: Edge<S> | 'end' | undefined = this.edges.get(current);
      current = edge === undefined || edge === 'end' ? 'end' : typeof edge === 'function' ? edge(state) : edge;
    }
    return state;
  }
}
