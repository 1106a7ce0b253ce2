// Answer types derived from the generated schema, so no caller declares a response by hand.
import type { components, paths } from './schema.js';

type JsonContent<R> = R extends { content: { 'application/json': infer B } } ? B : never;
type Method = 'get' | 'put' | 'post' | 'delete' | 'patch';

/** The JSON answer of a route at a status: `ApiResponse<'/fax/{id}', 'get'>`, `ApiResponse<'/fax', 'post', 202>`. */
export type ApiResponse<P extends keyof paths, M extends Method, S extends number = 200> = paths[P][M] extends { responses: infer R } ? (S extends keyof R ? JsonContent<R[S]> : never) : never;

/** The JSON body a route takes: `ApiBody<'/api/lab/runs', 'post'>`. */
export type ApiBody<P extends keyof paths, M extends Method> = paths[P][M] extends { requestBody?: infer B } ? JsonContent<NonNullable<B>> : never;

export type ErrorBody = components['schemas']['ErrorBody'];
/** A fax job as the API answers it. */
export type FaxJob = ApiResponse<'/fax/{id}', 'get'>;
/** A batch of fax jobs (POST /fax with several `to`, GET /fax/batches/{id}). */
export type FaxBatch = ApiResponse<'/fax/batches/{id}', 'get'>;
/** The preview POST /fax/prepare answers. */
export type PreparedFax = ApiResponse<'/fax/prepare', 'post', 201>;
/** An answer of POST /api/rag. */
export type Answer = ApiResponse<'/api/rag', 'post'>;
/** A started indexing run (POST /api/index/start). */
export type IndexRunStarted = ApiResponse<'/api/index/start', 'post', 202>;
/** Progress of a repository's latest indexing run (GET /api/index/status). */
export type IndexStatus = ApiResponse<'/api/index/status', 'get'>;
/** Code search results (GET /api/search). */
export type SearchAnswer = ApiResponse<'/api/search', 'get'>;
/** An API key's metadata (GET /admin/api-keys). */
export type ApiKey = ApiResponse<'/admin/api-keys', 'get'>['keys'][number];
/** A minted key with its token, shown once (POST /admin/api-keys). */
export type MintedApiKey = ApiResponse<'/admin/api-keys', 'post', 201>;
/** A plugin as GET /plugins lists it. */
export type PluginSummary = ApiResponse<'/plugins', 'get'>['plugins'][number];
/** A lab run (POST /api/lab/runs). */
export type LabRun = ApiResponse<'/api/lab/runs', 'post', 201>;
/** A fax job as the admin API shows it, with its attempts (GET /admin/fax-jobs/{id}). */
export type FaxJobDetail = ApiResponse<'/admin/fax-jobs/{id}', 'get'>;
/** A run with its request census and costs (GET /api/index/{corpus_id}/runs/latest). */
export type RunRecord = ApiResponse<'/api/index/{corpus_id}/runs/latest', 'get'>;
/** A compose service with its containers (GET /api/docker/services). */
export type ComposeService = ApiResponse<'/api/docker/services', 'get'>['services'][number];
