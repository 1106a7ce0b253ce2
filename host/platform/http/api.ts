import express, { type Request, type Response, type NextFunction } from 'express';
import { z } from 'zod';
import { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { httpError, httpErrorWithStatus, invalid } from './error-catalogue.js';
import { ErrorBody } from './errors.js';
import { ErrorCatalogue } from './error-catalogue.js';
import { mcpToolDeclaration, type McpToolMarker } from './mcp-tool.js';
import { ServingPhase } from './serving-phase.js';
import { DEFAULT_JSON_MAX_DEPTH, exceedsJsonDepth } from './json-depth.js';

export type HttpMethod = 'get' | 'post' | 'put' | 'delete' | 'patch';

/**
 * Who may call a route. `public` needs no key; `loopback` answers this machine only (and, once
 * keys exist, a key with `admin`); otherwise the scope a key must hold. `administrative` marks
 * admin routes: refused to other sites for every method, reads included.
 */
export type RouteAccess = 'public' | 'loopback' | { scope: string; administrative?: boolean };

export interface ResponseSpec {
  /** Required, except on an error status whose codes the route names (`errors`): their text is taken. */
  description?: string;
  schema?: z.ZodType;
  /** Defaults to application/json when a schema is given. */
  contentType?: string;
}

export interface RouteSpec<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType> {
  method: HttpMethod;
  /** express-style path, `/plugins/:id/config`. */
  path: string;
  summary: string;
  description?: string;
  tags: string[];
  access: RouteAccess;
  /** Who may call it, where the handler accepts more than `access` says (a token; a scope some fields need): for the scope table. */
  accessNote?: string;
  params?: P;
  query?: Q;
  /** Request headers the route reads, by their canonical name (`Idempotency-Key`): validated (400) and documented. */
  headers?: z.ZodObject;
  /** A JSON body validated by the schema; failures answer `bodyErrorStatus` (default 422). */
  body?: B;
  /** With a `rawBody`, the status the handler's own validation of it answers (documented only when set). */
  bodyErrorStatus?: 400 | 422;
  /** Status of query-parameter validation failures (default 400). */
  queryErrorStatus?: 400 | 422;
  /** For bodies the handler reads itself (multipart, form, raw): documented, not parsed. */
  rawBody?: { contentType: string; schema?: z.ZodType; description?: string };
  /**
   * The error codes the route answers beyond the defaults every route gets (key, scope, site,
   * validation, size, rate limit): each code's statuses and meaning come from the catalogue
   * (`HttpApi.errors`), so the route names a code and never restates it. A code no vocabulary
   * declares throws at registration. `validation_error` is not named: its status is the route's
   * (`bodyErrorStatus`, `queryErrorStatus`).
   */
  errors?: readonly string[];
  /** The answers the route documents itself; a status given here keeps this text over its codes'. */
  responses: Record<number, ResponseSpec>;
  /** The request budget the route draws from (per API key, or per client address without one). */
  rateLimit?: RateLimit;
  /** Offered as a tool by the MCP adapter (published as the operation's `x-mcp-tool`). */
  mcp?: McpToolMarker;
  /**
   * Answers while the plugins load and while the gateway drains (liveness, readiness, metrics).
   * Every other route answers 503 with Retry-After then (`ServingPhase`).
   */
  servesWhileStarting?: true;
}

/**
 * A request budget: requests per minute in a named bucket, counted per API key (or client address
 * without one). `perMinute` reads the route's own setting; without it the budget is
 * MAX_REQUESTS_PER_MINUTE. A key's own `rate_limit_rpm` overrides either.
 */
export interface RateLimit {
  bucket: string;
  perMinute?: () => number;
}

/** What the guard learns of the route it runs for. */
export interface GuardedRoute {
  method: HttpMethod;
  path: string;
  access: RouteAccess;
  accessNote?: string;
  rateLimit?: RateLimit;
}

export interface RouteInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  /** The declared headers, parsed; keys as the route's `headers` schema names them. */
  headers: Record<string, unknown>;
  req: Request;
  res: Response;
}

/** Called before a route's handler: authentication, rate limits. Set by the host. */
export type AccessGuard = (access: RouteAccess, req: Request, res: Response, route: GuardedRoute) => Promise<void>;

/** Called first, before the body is read: Host, Origin and Sec-Fetch-Site. Set by the host. */
export type SiteGuard = (route: GuardedRoute, req: Request) => void;

/** `application/json` and `application/*+json`, with or without parameters. */
function isJsonType(contentType: string): boolean {
  const media = contentType.split(';')[0]!.trim().toLowerCase();
  return media === 'application/json' || /^application\/[a-z0-9.!#$&^_-]+\+json$/.test(media);
}

/** A JSON body's size limit; a declared length over it is refused before a byte is read. */
const JSON_BODY_LIMIT_BYTES = 1024 * 1024;

const WRITES: readonly HttpMethod[] = ['post', 'put', 'patch', 'delete'];

/** A write that declares no body of its own kind (multipart, a provider's raw body). */
function takesJsonOrNothing(spec: { method: HttpMethod; rawBody?: unknown }): boolean {
  return WRITES.includes(spec.method) && !spec.rawBody;
}

function hasBody(req: Request): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

/**
 * A JSON route takes a JSON body or none: another Content-Type (a cross-site "simple" request
 * sends text/plain or a form) answers 415 before anything runs, even when the body is optional.
 */
function refuseNonJsonBody(req: Request): void {
  const type = req.headers['content-type'];
  if (type === undefined ? !hasBody(req) : isJsonType(type)) return;
  throw httpError('unsupported_media_type', { expected: 'application/json', got: type === undefined ? 'a body without Content-Type' : type.slice(0, 100) });
}
/**
 * Declares routes once: express handler, zod validation and the OpenAPI document all come from
 * the same spec, so /openapi.json cannot drift from what the server does.
 */
export class HttpApi {
  readonly registry = new OpenAPIRegistry();
  readonly router = express.Router();
  readonly routes: GuardedRoute[] = [];
  /** Every error code and its HTTP answer: the platform's, plus each surface's (added by the gateway from the surface's declaration). */
  readonly errors = new ErrorCatalogue();
  /** Loading plugins, serving, or draining: routes refuse new work outside `serving`. */
  readonly phase = new ServingPhase();
  private guard: AccessGuard = async () => {};
  private siteGuard: SiteGuard = () => {};
  // Checked on the raw bytes before express.json parses them (JSON_MAX_DEPTH).
  private readonly refuseDeepJson: (req: unknown, res: unknown, bytes: Buffer) => void;

  constructor(options: { jsonMaxDepth?: () => number } = {}) {
    const maxDepth = options.jsonMaxDepth ?? (() => DEFAULT_JSON_MAX_DEPTH);
    this.refuseDeepJson = (_req, _res, bytes) => {
      const limit = maxDepth();
      if (exceedsJsonDepth(bytes, limit)) throw httpError('json_too_deep', { what: 'the request body', limit });
    };
  }

  setGuard(guard: AccessGuard): void {
    this.guard = guard;
  }

  setSiteGuard(guard: SiteGuard): void {
    this.siteGuard = guard;
  }

  route<P extends z.ZodType = z.ZodType, Q extends z.ZodType = z.ZodType, B extends z.ZodType = z.ZodType>(
    spec: RouteSpec<P, Q, B>,
    handler: (input: RouteInput<z.infer<P>, z.infer<Q>, z.infer<B>>) => unknown | Promise<unknown>,
  ): void {
    const guarded: GuardedRoute = { method: spec.method, path: spec.path, access: spec.access, ...(spec.accessNote ? { accessNote: spec.accessNote } : {}), ...(spec.rateLimit ? { rateLimit: spec.rateLimit } : {}) };
    this.routes.push(guarded);
    this.register(spec);
    const run = async (req: Request, res: Response) => {
      await this.guard(spec.access, req, res, guarded);
      refuseControlCharacters(req.params);
      const params = spec.params ? parseOr(spec.params, req.params, 400, 'path') : req.params;
      const query = spec.query ? parseOr(spec.query, req.query, spec.queryErrorStatus ?? 400, 'query') : req.query;
      const headers = spec.headers ? parseOr(spec.headers, declaredHeaders(spec.headers, req), 400, 'header') : {};
      let body: unknown = undefined;
      if (spec.body) {
        // A route whose body schema accepts `undefined` takes a request without a body too.
        if (req.body === undefined && !spec.body.safeParse(undefined).success) throw invalid('body', 'must be JSON (Content-Type: application/json)', 400);
        if (req.body !== undefined) refuseProtoKeys(req.body, 'body');
        body = parseOr(spec.body, req.body, spec.bodyErrorStatus ?? 422, 'body');
      }
      const result = await handler({ params, query, body, headers, req, res } as RouteInput<z.infer<P>, z.infer<Q>, z.infer<B>>);
      if (!res.headersSent && result !== undefined) res.json(result);
      else if (!res.headersSent) res.status(204).end();
    };
    const checkSite = (req: Request) => {
      if (!spec.servesWhileStarting) {
        const refusal = this.phase.refusal();
        if (refusal) throw refusal;
      }
      this.siteGuard(guarded, req);
      // A write without a declared body reads none; one sent anyway must be JSON (or empty) too.
      if (spec.body || (takesJsonOrNothing(spec) && hasBody(req))) refuseNonJsonBody(req);
    };
    // The site check runs before the body is read; with no JSON body to read it shares the
    // route's handler, one layer less for express to walk on every request.
    if (spec.body) {
      this.router[spec.method](
        spec.path,
        (req: Request, _res: Response, next: NextFunction) => {
          checkSite(req);
          if (Number(req.headers['content-length'] ?? 0) > JSON_BODY_LIMIT_BYTES) throw httpError('payload_too_large', { what: 'request body', limit: `${JSON_BODY_LIMIT_BYTES} bytes` });
          next();
        },
        express.json({ limit: JSON_BODY_LIMIT_BYTES, type: ['application/json', 'application/*+json'], verify: this.refuseDeepJson }),
        (req: Request, res: Response, next: NextFunction) => void run(req, res).catch(next),
      );
    } else {
      this.router[spec.method](spec.path, (req: Request, res: Response, next: NextFunction) => {
        checkSite(req);
        run(req, res).catch(next);
      });
    }
  }

  /** The routes of one area, which share their tags and access: declared once, not on every route. */
  group(shared: Pick<RouteSpec<z.ZodType, z.ZodType, z.ZodType>, 'tags' | 'access'>): {
    route<P extends z.ZodType = z.ZodType, Q extends z.ZodType = z.ZodType, B extends z.ZodType = z.ZodType>(
      spec: Omit<RouteSpec<P, Q, B>, 'tags' | 'access'>,
      handler: (input: RouteInput<z.infer<P>, z.infer<Q>, z.infer<B>>) => unknown | Promise<unknown>,
    ): void;
  } {
    return { route: (spec, handler) => this.route({ ...spec, ...shared }, handler) };
  }

  private readonly operationIds = new Set<string>();
  private readonly mcpToolNames = new Set<string>();

  /** `get /plugins/:id/config` → `getPluginsByIdConfig`: derived from the route, so stable across builds. */
  private operationIdFor(method: HttpMethod, path: string): string {
    const words = path
      .split('/')
      .filter(Boolean)
      .map((segment) => (segment.startsWith(':') ? `by-${segment.slice(1)}` : segment))
      .flatMap((segment) => segment.split(/[^A-Za-z0-9]+/))
      .filter(Boolean);
    const base = method + words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
    // two paths that differ only in punctuation (`/a-b`, `/a_b`) would collide: number the later one
    let id = base;
    for (let n = 2; this.operationIds.has(id); n++) id = `${base}${n}`;
    this.operationIds.add(id);
    return id;
  }

  /** The answers of the codes a route names, one per status: each code's meaning and the code, joined with "; ". */
  private namedErrors(spec: RouteSpec<z.ZodType, z.ZodType, z.ZodType>): Record<number, string> {
    const byStatus: Record<number, string[]> = {};
    const route = `${spec.method.toUpperCase()} ${spec.path}`;
    for (const code of new Set(spec.errors ?? [])) {
      if (code === 'validation_error') throw new Error(`${route} names validation_error: its status comes from the route's schemas (bodyErrorStatus, queryErrorStatus)`);
      const row = this.errors.row(code);
      if (!row) throw new Error(`${route} names the error code "${code}", which no error vocabulary declares`);
      for (const status of row.statuses) (byStatus[status] ??= []).push(`${row.meaning.replace(/\.$/, '')} (\`${code}\`)`);
    }
    return Object.fromEntries(Object.entries(byStatus).map(([status, lines]) => [status, lines.join('; ')]));
  }

  private register(spec: RouteSpec<z.ZodType, z.ZodType, z.ZodType>): void {
    const path = spec.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const responses: Record<string, unknown> = {};
    for (const [status, r] of Object.entries(withDefaultErrors(spec, this.namedErrors(spec)))) {
      // every error answer is the one ErrorBody component unless the route documents another body
      const schema = r.schema ?? (Number(status) >= 400 && !r.contentType ? ErrorBody : undefined);
      responses[status] = schema
        ? { description: r.description, content: { [r.contentType ?? 'application/json']: { schema } } }
        : r.contentType
          ? { description: r.description, content: { [r.contentType]: { schema: { type: 'string', format: 'binary' } } } }
          : { description: r.description };
    }
    const access = spec.access;
    const security = access === 'public' ? [] : [{ ApiKeyAuth: [access === 'loopback' ? 'admin' : access.scope] }];
    const request: Record<string, unknown> = {};
    if (spec.params) request.params = spec.params;
    if (spec.query) request.query = spec.query;
    if (spec.headers) request.headers = spec.headers;
    if (spec.body) request.body = { content: { 'application/json': { schema: spec.body } } };
    if (spec.rawBody)
      request.body = {
        description: spec.rawBody.description,
        content: { [spec.rawBody.contentType]: { schema: spec.rawBody.schema ?? z.string() } },
      };
    if (spec.mcp) {
      if (this.mcpToolNames.has(spec.mcp.name)) throw new Error(`two routes are marked as the MCP tool ${spec.mcp.name}`);
      this.mcpToolNames.add(spec.mcp.name);
    }
    const mcpTool = spec.mcp ? { 'x-mcp-tool': mcpToolDeclaration({ ...spec, mcp: spec.mcp }) } : {};
    const accessNote =
      access === 'public'
        ? 'Access: public.'
        : access === 'loopback'
          ? 'Access: loopback callers only; once any API key exists, a key with scope `admin` too.'
          : `Access: API key with scope \`${access.scope}\` once any key exists; loopback callers only before that.${access.administrative ? ' An admin route: refused to other sites for every method.' : ''}`;
    this.registry.registerPath({
      method: spec.method,
      path,
      operationId: this.operationIdFor(spec.method, spec.path),
      summary: spec.summary,
      description: [spec.description, accessNote].filter(Boolean).join('\n\n'),
      tags: spec.tags,
      security,
      request: request as never,
      responses: responses as never,
      ...({ 'x-required-scope': typeof access === 'object' ? access.scope : access, ...mcpTool } as object),
    });
  }
}

/** The values of the headers a schema declares, read case-insensitively (a repeated header's last value). */
function declaredHeaders(schema: z.ZodObject, req: Request): Record<string, string | undefined> {
  const values: Record<string, string | undefined> = {};
  for (const name of Object.keys(schema.shape)) {
    const value = req.headers[name.toLowerCase()];
    values[name] = Array.isArray(value) ? value[value.length - 1] : value;
  }
  return values;
}

// No identifier holds control characters, and PostgreSQL refuses NUL in text outright (a 500).
const CONTROL = /[\u0000-\u001f\u007f]/;

/** A path parameter with a control character (NUL, CR, LF...) answers 400 before any lookup. */
function refuseControlCharacters(params: Record<string, unknown>): void {
  for (const [name, value] of Object.entries(params)) {
    if (typeof value === 'string' && CONTROL.test(value)) throw invalid(name, 'control characters are not allowed', 400);
  }
}

/**
 * JSON.parse keeps `"__proto__"` as an own key, which zod then drops silently (it assigns it
 * as the prototype), so a request naming it would answer 200 having done nothing: refuse it.
 */
function refuseProtoKeys(value: unknown, at: string, depth = 0): void {
  if (typeof value !== 'object' || value === null || depth > 64) return;
  if (Array.isArray(value)) {
    value.forEach((v, i) => refuseProtoKeys(v, `${at}.${i}`, depth + 1));
    return;
  }
  for (const [key, v] of Object.entries(value)) {
    if (key === '__proto__') throw invalid(at, 'the key "__proto__" is not allowed', 400);
    refuseProtoKeys(v, `${at}.${key}`, depth + 1);
  }
}

/**
 * The error answers every route may give, with those of the codes it names (joined to a default
 * of the same status) and the ones it documents (its own descriptions win): 401/403 where a key
 * or a loopback caller is needed, 404 where the path names a resource and no code says which,
 * 400/422 where parameters, a query or a body are validated, 429 where a rate limit applies.
 */
function withDefaultErrors(spec: RouteSpec<z.ZodType, z.ZodType, z.ZodType>, named: Record<number, string>): Record<number, ResponseSpec & { description: string }> {
  const defaults: Record<number, { description: string }> = {};
  const crossSite = WRITES.includes(spec.method) || spec.access === 'loopback' || (typeof spec.access === 'object' && !!spec.access.administrative);
  if (typeof spec.access === 'object') {
    defaults[401] = { description: 'Keys exist and no API key was sent, or an invalid, revoked or expired one (`unauthorized`)' };
    defaults[403] = { description: `The API key lacks scope \`${spec.access.scope}\` (\`insufficient_scope\`); no key exists yet and the caller is not on loopback (\`loopback_only\`)${crossSite ? '; a request from another site (`cross_site_request`)' : ''}` };
  } else if (spec.access === 'loopback') {
    defaults[401] = { description: 'Keys exist and no API key was sent, or an invalid one (`unauthorized`)' };
    defaults[403] = { description: 'Not a loopback caller (`loopback_only`), a key without `admin` (`insufficient_scope`), or a request from another site (`cross_site_request`)' };
  } else if (crossSite) {
    defaults[403] = { description: 'A request from another site: a foreign Origin or Sec-Fetch-Site: cross-site (`cross_site_request`)' };
  }
  if (spec.access !== 'public') defaults[421] = { description: 'The Host header is not a host of this gateway (`host_not_allowed`)' };
  if (spec.body || spec.rawBody) defaults[413] = { description: 'The request body is over its size limit (`payload_too_large`)' };
  if (spec.body || takesJsonOrNothing(spec)) defaults[415] = { description: 'The body is not application/json (`unsupported_media_type`)' };
  if (spec.params && !named[404]) defaults[404] = { description: 'Nothing with this id (see the `code`)' };
  if (spec.params || spec.query || spec.headers || (spec.body && (spec.bodyErrorStatus ?? 422) === 400)) defaults[400] = { description: 'A path parameter, query value or body field is invalid; `detail` names it (`validation_error`)' };
  if (spec.body) {
    defaults[400] ??= { description: 'The body is not JSON (`validation_error`)' };
    if ((spec.bodyErrorStatus ?? 422) === 422) defaults[422] = { description: 'A body field is invalid; `detail` names it (`validation_error`)' };
  }
  if (spec.query && spec.queryErrorStatus === 422) defaults[422] = { description: 'A query value is invalid; `detail` names it (`validation_error`)' };
  if (spec.rawBody && spec.bodyErrorStatus) defaults[spec.bodyErrorStatus] ??= { description: 'A field of the body is invalid; `detail` names it (`validation_error`)' };
  if (spec.rateLimit) defaults[429] = { description: 'Rate limit exceeded; Retry-After says when to retry (`rate_limited`)' };
  if (!spec.servesWhileStarting) defaults[503] = { description: 'The gateway is starting and its plugins are not loaded yet (`plugins_loading`), it is stopping (`shutting_down`), or the database or object store cannot be reached (`service_unavailable`); Retry-After says when to try again' };
  const merged: Record<number, ResponseSpec & { description: string }> = { ...defaults };
  for (const [status, description] of Object.entries(named)) {
    const shared = merged[Number(status)];
    merged[Number(status)] = { description: shared ? `${shared.description}; ${description}` : description };
  }
  for (const [status, own] of Object.entries(spec.responses)) {
    const description = own.description ?? (named[Number(status)] && merged[Number(status)]?.description);
    if (!description) throw new Error(`${spec.method.toUpperCase()} ${spec.path} documents ${status} without a description and names no code answered with it`);
    merged[Number(status)] = { ...own, description };
  }
  // A route's own 403 (a token, a signature) is answered beside the cross-site refusal: name both.
  const own403 = spec.responses[403]?.description;
  if (crossSite && own403) merged[403] = { ...merged[403], description: `${own403}; or a request from another site (\`cross_site_request\`)` };
  return merged;
}

/** Validates with zod; on failure a validation_error naming every failing field. */
export function parseOr<T extends z.ZodType>(schema: T, value: unknown, status: number, where: string): z.infer<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw httpErrorWithStatus('validation_error', status, {
    issues: result.error.issues.map((issue) => ({ field: issue.path.length ? issue.path.join('.') : where, problem: issue.message })),
  });
}
