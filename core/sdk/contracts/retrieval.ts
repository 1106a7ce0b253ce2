/** The retrieval contract: index documents, search them, delete them. */
export const RETRIEVAL_CONTRACT = '1.0.0';

export interface RetrievalDocument {
  id: string;
  text: string;
  metadata?: Record<string, unknown>;
}

export interface RetrievalHit {
  id: string;
  score: number;
  text: string;
  metadata?: Record<string, unknown>;
}

export interface RetrievalProvider {
  index(collection: string, documents: RetrievalDocument[]): Promise<{ indexed: number }>;
  search(collection: string, query: string, topK: number): Promise<RetrievalHit[]>;
  delete(collection: string, ids: string[]): Promise<{ deleted: number }>;
}
