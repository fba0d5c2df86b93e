// PlatformMcpCallContext: what a tool receives beside its arguments. It holds the call's delegated
// token and the caller as the platform reported them (permissions already narrowed to what the
// person and the app may both do), answers permission questions from that cached answer, and
// hands out the only client through which the token leaves the process: to the platform API. It is
// also the tool's side of MCP: progress and log messages for the client, and questions to the
// person or the client (see tool-questions.ts), each only as far as the client said it can take.
import type { Logger } from 'pino';
import type { z } from 'zod';
import type { Caller, CallerCompany } from '../caller/caller.ts';
import type { FormSpec } from './elicitation-form.ts';
import { createPlatformApiClient, type PlatformApiClient } from './platform-api-client.ts';
import { permissionDenied } from './tool-errors.ts';
import type { ElicitationAnswer, FormQuestion, QuestionOptions, Questions, Root, SamplingAnswer, SamplingRequest, UrlQuestion } from './tool-questions.ts';

/** One of MCP's log levels. Written out, not derived from `clientLogLevels`, so the public type needs no internal value. */
export type ClientLogLevel = 'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency';

/** MCP's log levels, lowest first. */
export const clientLogLevels = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const satisfies readonly ClientLogLevel[];

/** What the MCP client of a call can take. */
export interface CallClient {
  /** It gave a progress token: `ctx.progress` reaches it. */
  readonly progress: boolean;
  /** The lowest level of log message it wants; undefined when it wants none. */
  readonly logLevel: ClientLogLevel | undefined;
  /** Whether it can put a form (`ctx.elicit`) or a link (`ctx.elicitUrl`) to the person. */
  readonly elicitation: { readonly form: boolean; readonly url: boolean };
  /** Whether it can answer `ctx.sample` with its model. */
  readonly sampling: boolean;
  /** Whether it can answer `ctx.listRoots`. */
  readonly roots: boolean;
}

/** Where a call's progress and log messages go: the gRPC stream to the gateway. */
export interface CallEvents {
  /** One progress report, already known to grow and to be wanted by the client. */
  progress(progress: number, total: number | undefined, message: string): void;
  /** One log message at a level the client wants; `dataJson` is its data as JSON. */
  log(level: ClientLogLevel, dataJson: string, logger: string): void;
  /** A call run as an MCP task (CallToolAsTask) only: the call is a task from here; told as the handler starts. */
  taskStarted?(): void;
}

/** A client that can take nothing: a call made without one (a test, a caller of the runner). */
export const noClient: CallClient = Object.freeze({
  progress: false,
  logLevel: undefined,
  elicitation: Object.freeze({ form: false, url: false }),
  sampling: false,
  roots: false,
});

/** The call context of one tool call (SPEC "Call context"). */
export interface PlatformMcpCallContext {
  /**
   * The call's delegated token, as it is now: use it only as the bearer towards the platform API;
   * never log or store it. In a call run as an MCP task the gateway renews it while the person
   * polls, so read it at each use and never keep a copy (the platform clients read it at each request).
   */
  readonly authToken: string;
  /** The person, as a platform user id. */
  readonly callerId: string;
  /** The companies the delegated token reaches, with the narrowed permissions. */
  readonly companies: readonly CallerCompany[];
  /** The MCP request's correlation id, on every log line of this call. */
  readonly requestId: string;
  /** The called tool's name, on every log line of this call. */
  readonly toolName: string;
  /** Aborted when the gRPC deadline passes or the gateway cancels the call. */
  readonly signal: AbortSignal;
  /** The call's logger: every line carries the request id and the tool's name. */
  readonly logger: Logger;
  /** The platform API, called with the delegated token. */
  readonly platform: PlatformApiClient;
  /** Another part of the platform API the app declared by name (the webhook API on its own port), called with the delegated token. */
  platformApi(name: string): PlatformApiClient;
  /** True when the person and the app may both do `permission` at `companyId`. */
  hasPermission(permission: string, companyId: number): boolean;
  /** Always false: the SDK takes delegated tokens only, and delegation gives an owner no bypass. */
  isOwner(companyId: number): false;
  /** Refuses the call (PERMISSION_DENIED, naming the permission and the company) unless hasPermission holds. */
  requirePermission(permission: string, companyId: number): void;
  /** What the MCP client of this call can take: check it before asking what it may not answer. */
  readonly client: CallClient;
  /**
   * Tells the client how far the call is (MCP `notifications/progress`), when it asked to be told;
   * `progress` must grow from one report to the next (a report that does not is dropped). The
   * gateway passes a few reports a second on to the client, the newest when it must choose.
   */
  progress(progress: number, total?: number, message?: string): void;
  /** A log message for the client (MCP `notifications/message`), sent when the client asked for that level or lower. `data` is any JSON value. */
  log(level: ClientLogLevel, data: unknown, logger?: string): void;
  /**
   * Asks the person to fill a form (MCP elicitation, form mode) and resolves with what they did.
   * The call ends here and the tool runs again, from the start, with the answer: do nothing before
   * a question that must not happen twice, and ask again with the same question to find the answer.
   * A client that cannot ask the person (`client.elicitation.form` false) makes the call fail with a
   * message saying so.
   */
  elicit<Form extends FormSpec>(question: FormQuestion<Form>, options?: QuestionOptions): Promise<ElicitationAnswer<FormContent<Form>>>;
  /** Sends the person to a page (MCP elicitation, URL mode): to sign in elsewhere, to approve something. Runs like `elicit`. */
  elicitUrl(question: UrlQuestion, options?: QuestionOptions): Promise<{ readonly action: 'accept' | 'decline' | 'cancel' }>;
  /** Asks the client's model for a completion (MCP sampling). Runs like `elicit`. */
  sample(request: SamplingRequest, options?: QuestionOptions): Promise<SamplingAnswer>;
  /** Asks the client for its roots (MCP `roots/list`). Runs like `elicit`. */
  listRoots(options?: QuestionOptions): Promise<readonly Root[]>;
  /**
   * For a tool whose `execution.taskStart` is `explicit`, run as an MCP task: the call becomes the
   * task here (the client is answered with it and polls it); the questions asked before were put to
   * the client in the call itself. Does nothing otherwise, and the second time.
   */
  startTask(): void;
}

/** What a form's answer holds: the zod object's output, or the fields' values for a JSON Schema form. */
export type FormContent<Form extends FormSpec> = Form extends z.ZodObject ? z.output<Form> : Record<string, string | number | boolean | string[]>;

/** Where a call's requests to the platform API go, and how: what the tool runner hands each call context. */
export interface PlatformApiOptions {
  /** The platform API's base address. */
  readonly apiBaseUrl: string;
  /** Other base addresses that are part of the platform API, by name. */
  readonly platformApiBaseUrls: ReadonlyMap<string, string>;
  readonly httpTimeoutMs: number;
  /** The fetch of requests to the platform API (its back channel, when one is set); the global one by default. */
  readonly fetch?: typeof globalThis.fetch | undefined;
}

/** What a call context is made from: the token, the checked caller, the call and the platform clients. */
export interface CallContextOptions extends PlatformApiOptions {
  /** The delegated token; a function is read at each use (`authToken`, each platform request): the call's current token, renewed during a task. */
  readonly token: string | (() => string);
  readonly caller: Caller;
  readonly toolName: string;
  readonly requestId: string;
  readonly signal: AbortSignal;
  readonly logger: Logger;
  /** What the call's client can take; nothing by default. */
  readonly client?: CallClient;
  /** Where progress and log messages go; nowhere by default. */
  readonly events?: CallEvents;
  /** The call's questions and their answers, made at the first question; without them, a question fails the call. */
  readonly questions?: () => Questions;
  /** Makes a call run as a task one (ctx.startTask); nothing by default. */
  readonly startTask?: () => void;
}

const severity = new Map<string, number>(clientLogLevels.map((level, index) => [level, index]));

/**
 * The context of one call. Every member is a getter or method on the prototype over private
 * fields: logging or serializing a context writes only what toJSON shows, never the token, and it
 * costs a call one small object.
 */
class CallContext implements PlatformMcpCallContext {
  readonly #options: CallContextOptions;
  #logger: Logger | undefined;
  #platform: PlatformApiClient | undefined;
  #lastProgress = Number.NEGATIVE_INFINITY;

  constructor(options: CallContextOptions) {
    this.#options = options;
  }

  get authToken(): string {
    const { token } = this.#options;
    return typeof token === 'function' ? token() : token;
  }

  get callerId(): string {
    return this.#options.caller.id;
  }

  get companies(): readonly CallerCompany[] {
    return this.#options.caller.companies;
  }

  get requestId(): string {
    return this.#options.requestId;
  }

  get toolName(): string {
    return this.#options.toolName;
  }

  get signal(): AbortSignal {
    return this.#options.signal;
  }

  get logger(): Logger {
    this.#logger ??= this.#options.logger.child({ requestId: this.requestId, tool: this.toolName });
    return this.#logger;
  }

  get platform(): PlatformApiClient {
    this.#platform ??= this.#client(this.#options.apiBaseUrl, 'the platform API');
    return this.#platform;
  }

  platformApi(name: string): PlatformApiClient {
    const baseUrl = this.#options.platformApiBaseUrls.get(name);
    if (baseUrl === undefined) throw new TypeError(`this tool service declares no platform API part named "${name}"`);
    return this.#client(baseUrl, `the ${name} API`);
  }

  hasPermission(permission: string, companyId: number): boolean {
    return this.companies.find((company) => company.id === companyId)?.permissions.has(permission) ?? false;
  }

  isOwner(_companyId: number): false {
    return false;
  }

  requirePermission(permission: string, companyId: number): void {
    if (!this.hasPermission(permission, companyId)) throw permissionDenied(permission, companyId);
  }

  get client(): CallClient {
    return this.#options.client ?? noClient;
  }

  progress(progress: number, total?: number, message?: string): void {
    if (!Number.isFinite(progress) || (total !== undefined && !Number.isFinite(total)))
      throw new TypeError('progress: progress and total must be finite numbers');
    if (progress <= this.#lastProgress) return;
    this.#lastProgress = progress;
    if (this.client.progress) this.#options.events?.progress(progress, total, message ?? '');
  }

  log(level: ClientLogLevel, data: unknown, logger?: string): void {
    const wanted = this.client.logLevel;
    const rank = severity.get(level);
    if (rank === undefined) throw new TypeError(`log: level must be one of ${clientLogLevels.join(', ')}`);
    if (wanted === undefined || rank < (severity.get(wanted) ?? 0)) return;
    const dataJson = JSON.stringify(data) as string | undefined;
    if (dataJson === undefined) throw new TypeError('log: data must be a JSON value');
    this.#options.events?.log(level, dataJson, logger ?? '');
  }

  elicit<Form extends FormSpec>(question: FormQuestion<Form>, options?: QuestionOptions): Promise<ElicitationAnswer<FormContent<Form>>> {
    return this.#questions().elicit<FormContent<Form>>(question, options);
  }

  elicitUrl(question: UrlQuestion, options?: QuestionOptions): Promise<{ readonly action: 'accept' | 'decline' | 'cancel' }> {
    return this.#questions().elicitUrl(question, options);
  }

  sample(request: SamplingRequest, options?: QuestionOptions): Promise<SamplingAnswer> {
    return this.#questions().sample(request, options);
  }

  listRoots(options?: QuestionOptions): Promise<readonly Root[]> {
    return this.#questions().listRoots(options);
  }

  startTask(): void {
    this.#options.startTask?.();
  }

  #questions(): Questions {
    const { questions } = this.#options;
    if (!questions) throw new TypeError('this call cannot ask questions: it was made without the means to answer them');
    return questions();
  }

  toJSON(): { requestId: string; toolName: string; callerId: string } {
    return { requestId: this.requestId, toolName: this.toolName, callerId: this.callerId };
  }

  #client(baseUrl: string, serviceName: string): PlatformApiClient {
    const { httpTimeoutMs: timeoutMs, fetch } = this.#options;
    return createPlatformApiClient({ baseUrl, token: () => this.authToken, signal: this.signal, timeoutMs, serviceName, ...(fetch && { fetch }) });
  }
}

/** The `PlatformMcpCallContext` a tool's handler receives. */
export function createCallContext(options: CallContextOptions): PlatformMcpCallContext {
  return new CallContext(options);
}
