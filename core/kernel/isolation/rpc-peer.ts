import { Readable } from 'node:stream';

/**
 * One end of the message channel between the host and an isolated plugin (a child process or a
 * worker). Both ends run this same code: a call names a target (a root object the other end
 * exposes, or a handle it handed out) and a method; arguments and results cross as
 * structured-clone data, with what cannot be cloned turned into handles the other end calls
 * back: functions, objects with methods (a write session), streams (pulled in chunks), abort
 * signals (an abort crosses as a message) and errors (rebuilt as the named SDK class).
 */
export type RpcMessage =
  | { t: 'call'; id: number; target: string; method: string; args: unknown[] }
  | { t: 'result'; id: number; value: unknown }
  | { t: 'error'; id: number; error: unknown }
  | { t: 'release'; target: string }
  | { t: 'abort'; signal: string; reason: string };

/** Error classes rebuilt by name on arrival, so `instanceof NotAcceptedError` holds across the boundary. */
export type ErrorClasses = Record<string, abstract new (...args: never[]) => Error>;

interface Encoded {
  $sb: 'bytes' | 'fn' | 'obj' | 'stream' | 'signal' | 'error' | 'undefined';
  [key: string]: unknown;
}

type Pending = { resolve: (v: unknown) => void; reject: (e: unknown) => void; scope: string[] };

const CHUNK_BYTES = 256 * 1024;

export class RpcPeer {
  private nextCall = 1;
  private nextHandle = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly handles = new Map<string, unknown>();
  private readonly signals = new Map<string, AbortController>();
  private closed: Error | undefined;
  private readonly finalizer = new FinalizationRegistry<string>((target) => {
    if (!this.closed) this.post({ t: 'release', target });
  });

  constructor(
    private readonly post: (message: RpcMessage) => void,
    roots: Record<string, object>,
    private readonly errorClasses: ErrorClasses = {},
  ) {
    for (const [name, value] of Object.entries(roots)) this.handles.set(name, value);
  }

  /** Makes `value` callable by the other end as `name`. */
  expose(name: string, value: object): void {
    this.handles.set(name, value);
  }

  /** Calls `method` of the other end's `target`; the handles made for the arguments live until it settles. */
  call(target: string, method: string, args: unknown[]): Promise<unknown> {
    if (this.closed) return Promise.reject(this.closed);
    const id = this.nextCall++;
    const scope: string[] = [];
    const encoded = args.map((a) => this.encode(a, scope));
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, scope });
      this.post({ t: 'call', id, target, method, args: encoded });
    });
  }

  /** Calls without waiting for an answer (logs, metrics, events). */
  notify(target: string, method: string, args: unknown[]): void {
    if (this.closed) return;
    this.post({ t: 'call', id: 0, target, method, args: args.map((a) => this.encode(a, undefined)) });
  }

  get inFlight(): number {
    return this.pending.size;
  }

  /** Rejects every call in flight with `error` and refuses new ones. */
  close(error: Error): void {
    if (this.closed) return;
    this.closed = error;
    for (const p of this.pending.values()) p.reject(error);
    this.pending.clear();
    for (const c of this.signals.values()) c.abort(error);
    this.signals.clear();
    this.handles.clear();
  }

  receive(message: RpcMessage): void {
    switch (message.t) {
      case 'call':
        void this.serve(message);
        return;
      case 'result':
      case 'error': {
        const p = this.pending.get(message.id);
        if (!p) return;
        this.pending.delete(message.id);
        for (const h of p.scope) this.handles.delete(h);
        if (message.t === 'result') p.resolve(this.decode(message.value));
        else p.reject(this.decode(message.error));
        return;
      }
      case 'release':
        this.handles.delete(message.target);
        return;
      case 'abort':
        this.signals.get(message.signal)?.abort(new Error(message.reason));
        return;
    }
  }

  private async serve(message: Extract<RpcMessage, { t: 'call' }>): Promise<void> {
    try {
      const target = this.handles.get(message.target) as Record<string, unknown> | ((...a: unknown[]) => unknown) | undefined;
      if (target === undefined) throw new Error(`no such target: ${message.target}`);
      const args = message.args.map((a) => this.decode(a));
      const fn = message.method === '' ? target : (target as Record<string, unknown>)[message.method];
      if (typeof fn !== 'function') throw new Error(`${message.target} has no method ${message.method}`);
      const value = await (fn as (...a: unknown[]) => unknown).apply(message.method === '' ? undefined : target, args);
      if (message.id) this.post({ t: 'result', id: message.id, value: this.encode(value, undefined) });
    } catch (err) {
      if (message.id && !this.closed) this.post({ t: 'error', id: message.id, error: this.encode(err, undefined) });
    }
  }

  /** `scope` collects handles that die with the call (arguments); results' handles live until released. */
  private handle(value: unknown, scope: string[] | undefined): string {
    const id = `h${this.nextHandle++}`;
    this.handles.set(id, value);
    scope?.push(id);
    return id;
  }

  private encode(value: unknown, scope: string[] | undefined): unknown {
    if (value === undefined) return { $sb: 'undefined' } satisfies Encoded;
    if (value === null || typeof value !== 'object') {
      if (typeof value === 'function') return { $sb: 'fn', id: this.handle(value, scope) } satisfies Encoded;
      return value;
    }
    // A copy: cloning a view clones its whole ArrayBuffer (a Buffer's is the shared pool).
    if (value instanceof Uint8Array) return { $sb: 'bytes', v: new Uint8Array(value) } satisfies Encoded;
    if (value instanceof Date || value instanceof RegExp) return value;
    if (Array.isArray(value)) return value.map((v) => this.encode(v, scope));
    if (value instanceof Error) {
      const props: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) if (typeof v !== 'function') props[k] = this.encode(v, undefined);
      if (value.cause !== undefined) props.cause = this.encode(value.cause, undefined);
      return { $sb: 'error', name: value.name, className: value.constructor?.name, message: value.message, stack: value.stack, props } satisfies Encoded;
    }
    if (isAbortSignal(value)) {
      const id = `s${this.nextHandle++}`;
      if (!value.aborted) {
        const onAbort = () => this.post({ t: 'abort', signal: id, reason: String((value.reason as Error)?.message ?? value.reason ?? 'aborted') });
        value.addEventListener('abort', onAbort, { once: true });
      }
      return { $sb: 'signal', id, aborted: value.aborted } satisfies Encoded;
    }
    if (isReadable(value)) {
      const iterator = (value as AsyncIterable<unknown>)[Symbol.asyncIterator]();
      const pull = async () => {
        const next = await iterator.next();
        if (next.done) return null;
        const chunk = next.value;
        return typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      };
      return { $sb: 'stream', id: this.handle({ pull, cancel: () => iterator.return?.() }, scope) } satisfies Encoded;
    }
    const proto = Object.getPrototypeOf(value);
    if (proto === Object.prototype || proto === null) {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[k] = this.encode(v, scope);
      return out;
    }
    if (value instanceof Map || value instanceof Set) return value;
    // A class instance: its data crosses, its methods become calls on a handle.
    const data: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (typeof v !== 'function') data[k] = this.encode(v, scope);
    return { $sb: 'obj', id: this.handle(value, scope), methods: methodNames(value), data } satisfies Encoded;
  }

  private decode(value: unknown): unknown {
    if (value === null || typeof value !== 'object') return value;
    if (value instanceof Date || value instanceof RegExp || value instanceof Map || value instanceof Set) return value;
    if (Array.isArray(value)) return value.map((v) => this.decode(v));
    const tagged = value as Encoded | { $sb?: undefined; [key: string]: unknown };
    switch (tagged.$sb) {
      case 'undefined':
        return undefined;
      case 'bytes': {
        const v = tagged.v as Uint8Array;
        return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
      }
      case 'fn': {
        const target = tagged.id as string;
        const fn = (...args: unknown[]) => this.call(target, '', args);
        this.finalizer.register(fn, target);
        return fn;
      }
      case 'obj': {
        const target = tagged.id as string;
        const out: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(tagged.data as Record<string, unknown>)) out[k] = this.decode(v);
        for (const m of tagged.methods as string[]) out[m] = (...args: unknown[]) => this.call(target, m, args);
        this.finalizer.register(out, target);
        return out;
      }
      case 'stream': {
        const target = tagged.id as string;
        const peer = this;
        const stream = Readable.from(
          (async function* () {
            for (;;) {
              const chunk = (await peer.call(target, 'pull', [])) as Buffer | null;
              if (chunk === null) return;
              for (let at = 0; at < chunk.length; at += CHUNK_BYTES) yield chunk.subarray(at, at + CHUNK_BYTES);
            }
          })(),
          { objectMode: false },
        );
        this.finalizer.register(stream, target);
        return stream;
      }
      case 'signal': {
        const controller = new AbortController();
        if (tagged.aborted) controller.abort(new Error('aborted'));
        else this.signals.set(tagged.id as string, controller);
        return controller.signal;
      }
      case 'error':
        return this.decodeError(tagged as Encoded);
    }
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as object)) out[k] = this.decode(v);
    return out;
  }

  private decodeError(tagged: Encoded): Error {
    const cls = this.errorClasses[tagged.className as string] ?? this.errorClasses[tagged.name as string];
    const err = Object.create((cls ?? Error).prototype) as Error;
    const props = tagged.props as Record<string, unknown>;
    for (const [k, v] of Object.entries(props)) (err as unknown as Record<string, unknown>)[k] = this.decode(v);
    Object.defineProperty(err, 'message', { value: tagged.message, writable: true, configurable: true });
    Object.defineProperty(err, 'name', { value: tagged.name, writable: true, configurable: true });
    Object.defineProperty(err, 'stack', { value: tagged.stack, writable: true, configurable: true });
    return err;
  }
}

function isAbortSignal(value: object): value is AbortSignal {
  return typeof AbortSignal !== 'undefined' && value instanceof AbortSignal;
}

function isReadable(value: object): boolean {
  return value instanceof Readable || (typeof (value as { pipe?: unknown }).pipe === 'function' && typeof (value as Record<symbol, unknown>)[Symbol.asyncIterator] === 'function');
}

/** The methods of a class instance, up its prototype chain (Object's own left out). */
function methodNames(value: object): string[] {
  const names = new Set<string>();
  for (let proto = Object.getPrototypeOf(value); proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (name !== 'constructor' && typeof Object.getOwnPropertyDescriptor(proto, name)?.value === 'function') names.add(name);
    }
  }
  for (const [k, v] of Object.entries(value)) if (typeof v === 'function') names.add(k);
  return [...names];
}
